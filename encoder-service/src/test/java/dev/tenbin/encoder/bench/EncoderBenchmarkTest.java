package dev.tenbin.encoder.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.EncoderServiceConfig;
import dev.tenbin.encoder.testing.TinyModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
    try (EncoderCore core = new EncoderCore(EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")))) {
      EncoderBenchmark.Result result = new EncoderBenchmark(core, "tiny-dense").run(documents, queries, progress::add);
      assertThat(result.documents()).isEqualTo(64);
      assertThat(List.of(
              result.inProcessDocsPerSecond(), result.grpcInProcessTransportDocsPerSecond(), result.grpcDocsPerSecond(),
              result.tokenBudgetDocsPerSecond(), result.fixed32DocsPerSecond(), result.fullQueryMicros(),
              result.lightQueryMicros(), result.cacheBuildSeconds()))
          .allSatisfy(figure -> assertThat(figure).isPositive());
      assertThat(result.lightSpeedup()).isEqualTo(result.fullQueryMicros() / result.lightQueryMicros());
      assertThat(result.vocabularySize()).isEqualTo(TinyModels.VOCABULARY);
      assertThat(result.cacheBytes()).isGreaterThan((long) TinyModels.VOCABULARY * TinyModels.HIDDEN * 4);
      assertThat(progress).last().isEqualTo(TinyModels.VOCABULARY);
    }
  }
}
