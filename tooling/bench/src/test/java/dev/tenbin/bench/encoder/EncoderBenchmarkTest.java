package dev.tenbin.bench.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.light.TokenEmbeddingCache;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark core measures every figure of one model in one run (here on a tiny model). */
class EncoderBenchmarkTest {
  @TempDir Path tmp;

  @Test
  void everyFigureIsMeasuredAndTheCacheIsBuiltOnce() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    Random random = new Random(3);
    List<String> documents = new ArrayList<>();
    for (int d = 0; d < 64; d++) {
      StringBuilder text = new StringBuilder();
      for (int w = 0, n = 1 + random.nextInt(20); w < n; w++) {
        text.append(TinyModels.WORDS.get(random.nextInt(TinyModels.WORDS.size()))).append(' ');
      }
      documents.add(text.toString().trim());
    }
    List<String> queries = List.of("apple banana", "cherry", "date elder fig");
    List<Integer> progress = new ArrayList<>();
    try (EncoderCore core =
        new EncoderCore(
            EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")))) {
      EncoderBenchmark.Result result =
          new EncoderBenchmark(core, "tiny-dense").run(documents, queries, progress::add);
      assertThat(result.documents()).isEqualTo(64);
      assertThat(
              List.of(
                  result.inProcessDocsPerSecond(),
                  result.grpcInProcessTransportDocsPerSecond(),
                  result.grpcDocsPerSecond(),
                  result.tokenBudgetDocsPerSecond(),
                  result.fixed32DocsPerSecond(),
                  result.fullQueryMicros(),
                  result.fullQueryNoQueueDelayMicros(),
                  result.lightQueryMicros(),
                  result.cacheBuildSeconds()))
          .allSatisfy(figure -> assertThat(figure).isPositive());
      assertThat(result.queueDelayMillis())
          .as("the configured queue delay of the full path")
          .isEqualTo(core.config().batching().maxQueueDelay().toNanos() / 1e6)
          .isPositive();
      assertThat(result.vocabularySize()).isEqualTo(TinyModels.VOCABULARY);
      Path cache =
          TokenEmbeddingCache.folder(tmp.resolve("cache"), core.model("tiny-dense").card());
      long onDisk;
      try (Stream<Path> files = Files.walk(cache)) {
        onDisk = files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
      }
      assertThat(result.cacheBytes())
          .as("the size of the cache folder")
          .isEqualTo(onDisk)
          .isGreaterThan((long) TinyModels.VOCABULARY * TinyModels.HIDDEN * 4);
      assertThat(progress)
          .as("one build: progress only rises, to the whole vocabulary")
          .isSorted()
          .doesNotHaveDuplicates()
          .last()
          .isEqualTo(TinyModels.VOCABULARY);
    }
  }

  @Test
  void derivedFiguresAreRatiosInTheirStatedDirection() {
    EncoderBenchmark.Result result =
        new EncoderBenchmark.Result(
            "m", 10, 400, 300, 100, 600, 200, 250, 50, 2, 2.5, 4000, 40, 1.5, 1 << 20, 100);
    assertThat(result.lightSpeedup())
        .as("full query latency over light query latency")
        .isEqualTo(100.0);
    assertThat(result.lightSpeedupNoQueueDelay())
        .as("full query latency without the queue delay over light query latency")
        .isEqualTo(20.0);
    assertThat(result.grpcOverInProcess()).as("gRPC docs/s over in-process docs/s").isEqualTo(0.25);
    assertThat(result.tokenBudgetOverFixed32())
        .as("token-budget docs/s over fixed-32 docs/s")
        .isEqualTo(3.0);
  }
}
