package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GetModelInfo answers from the cache folder what an earlier process loaded from the very same
 * files, without loading the model; changed or just-written files or a damaged entry mean a load.
 */
class RememberedModelInfoTest {
  @TempDir Path tmp;
  Path models;
  Path cache;

  @BeforeEach
  void models() throws IOException {
    models = tmp.resolve("models");
    cache = tmp.resolve("cache");
    TinyModels.dense(models, "tiny-dense", false);
    writtenAnHourAgo(models.resolve("tiny-dense"));
  }

  /** Sets every file of the folder to an hour ago: a model written earlier, its files settled. */
  private static void writtenAnHourAgo(Path folder) throws IOException {
    FileTime hourAgo = FileTime.from(Instant.now().minusSeconds(3600));
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(file, hourAgo);
      }
    }
  }

  private EncoderCore core(Path cacheDirectory) {
    return new EncoderCore(
        EncoderServiceConfig.embedded(models, cacheDirectory)
            .withHubEndpoint("http://127.0.0.1:9")
            .withModels(ModelPolicy.allowAll()));
  }

  private EncoderCore.ModelInfo loadedOnce() {
    try (EncoderCore first = core(cache)) {
      EncoderCore.ModelInfo info = first.info("tiny-dense");
      assertThat(first.loadedModels()).containsExactly("tiny-dense");
      return info;
    }
  }

  private Stream<Path> entries() throws IOException {
    return Files.list(cache.resolve("model-info")).filter(p -> p.toString().endsWith(".json"));
  }

  @Test
  void aSecondProcessAnswersTheSameInfoWithoutLoadingTheModel() throws IOException {
    EncoderCore.ModelInfo loaded = loadedOnce();
    assertThat(loaded.card().dimension()).isEqualTo(TinyModels.HIDDEN);
    try (Stream<Path> entries = entries()) {
      assertThat(entries).hasSize(1);
    }
    try (EncoderCore second = core(cache)) {
      assertThat(second.info("tiny-dense")).isEqualTo(loaded);
      assertThat(second.loadedModels()).isEmpty();
    }
  }

  @Test
  void aBuiltInModelIsRememberedByItsJarAndGivesTheLoadedAnswer() {
    EncoderCore.ModelInfo loaded;
    try (EncoderCore first = core(cache)) {
      loaded = first.info("all-MiniLM-L6-v2");
      assertThat(first.loadedModels()).containsExactly("all-minilm-l6-v2");
    }
    try (EncoderCore second = core(cache)) {
      assertThat(second.info("all-minilm-l6-v2")).isEqualTo(loaded);
      assertThat(second.loadedModels()).isEmpty();
    }
  }

  @Test
  void aTouchedOrReplacedFileMeansTheModelIsLoadedAgain() throws IOException {
    EncoderCore.ModelInfo loaded = loadedOnce();
    Path card = models.resolve("tiny-dense/card.json");
    Files.setLastModifiedTime(card, FileTime.from(Instant.parse("2020-01-01T00:00:00Z")));
    try (EncoderCore second = core(cache)) {
      assertThat(second.info("tiny-dense")).isEqualTo(loaded);
      assertThat(second.loadedModels()).containsExactly("tiny-dense");
    }
    // The files are the same, so the new entry gives the same answer; the old one is never read.
    try (Stream<Path> entries = entries()) {
      assertThat(entries).hasSize(2);
    }
    try (EncoderCore third = core(cache)) {
      assertThat(third.info("tiny-dense")).isEqualTo(loaded);
      assertThat(third.loadedModels()).isEmpty();
    }
  }

  @Test
  void aDamagedEntryIsIgnoredAndRewritten() throws IOException {
    EncoderCore.ModelInfo loaded = loadedOnce();
    Path entry;
    try (Stream<Path> entries = entries()) {
      entry = entries.findFirst().orElseThrow();
    }
    Files.writeString(entry, "{\"format\": \"tenbin-model-info-v2\", \"info\": ");
    try (EncoderCore second = core(cache)) {
      assertThat(second.info("tiny-dense")).isEqualTo(loaded);
      assertThat(second.loadedModels()).containsExactly("tiny-dense");
    }
    try (EncoderCore third = core(cache)) {
      assertThat(third.info("tiny-dense")).isEqualTo(loaded);
      assertThat(third.loadedModels()).isEmpty();
    }
  }

  @Test
  void aModelWrittenMomentsAgoIsLoadedEveryTimeUntilItsFilesHaveSettled() throws IOException {
    TinyModels.dense(models, "fresh-dense", false);
    for (int process = 0; process < 2; process++) {
      try (EncoderCore core = core(cache)) {
        core.info("fresh-dense");
        assertThat(core.loadedModels()).as("process %d", process).containsExactly("fresh-dense");
      }
    }
    writtenAnHourAgo(models.resolve("fresh-dense"));
    try (EncoderCore core = core(cache)) {
      core.info("fresh-dense");
      assertThat(core.loadedModels()).containsExactly("fresh-dense");
    }
    try (EncoderCore core = core(cache)) {
      core.info("fresh-dense");
      assertThat(core.loadedModels()).isEmpty();
    }
  }
}
