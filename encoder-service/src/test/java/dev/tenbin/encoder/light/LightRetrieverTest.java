package dev.tenbin.encoder.light;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.SparseVector;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LightRetrieverTest {
  @TempDir Path tmp;
  EncoderCore core;
  LightQueryEncoder light;

  @BeforeEach
  void start() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    core =
        new EncoderCore(EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")));
    light = new LightQueryEncoder(core, tmp.resolve("cache"));
  }

  @AfterEach
  void stop() {
    core.close();
  }

  private CacheManifest build() {
    LoadedModel model = core.model("tiny-dense");
    return TokenEmbeddingCache.build(
        model, light.cacheFolder("tiny-dense"), 5, 4, 0, false, done -> {});
  }

  @Test
  void eachCachedRowIsTheFullModelsEncodingOfTheTokenInTheQueryPrompt() {
    CacheManifest manifest = build();
    assertThat(manifest.vocabularySize()).isEqualTo(TinyModels.VOCABULARY);
    assertThat(manifest.modelRevision()).isEqualTo("test-rev");
    assertThat(manifest.prompt()).isEqualTo("query ");
    TokenEmbeddingCache cache = TokenEmbeddingCache.load(light.cacheFolder("tiny-dense"));
    // Token "apple" (id 4): the model sees "[CLS] query apple [SEP]", exactly like the query
    // "apple".
    float[] full =
        core.encodeDense("tiny-dense", List.of("apple"), true, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(cache.row(4)).containsExactly(full, within(1e-6f));
  }

  @Test
  void queriesAreTheMeanOfTheirTokensRowsWithNoInference() {
    build();
    TokenEmbeddingCache cache = TokenEmbeddingCache.load(light.cacheFolder("tiny-dense"));
    float[] apple = cache.row(4);
    float[] banana = cache.row(5);
    float[] expected = new float[apple.length];
    double norm = 0;
    for (int d = 0; d < apple.length; d++) {
      expected[d] = (apple[d] + banana[d]) / 2;
      norm += expected[d] * expected[d];
    }
    for (int d = 0; d < apple.length; d++) {
      expected[d] /= (float) Math.sqrt(norm);
    }
    float[] query = light.dense("tiny-dense", List.of("apple banana"), 0, true).getFirst();
    assertThat(query).containsExactly(expected, within(1e-6f));
  }

  @Test
  void aNarrowerWidthIsServedOnlyFromATableOfThatWidthNeverByTruncatingTheMean() {
    build();
    assertThatThrownBy(() -> light.dense("tiny-dense", List.of("apple banana"), 4, true))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("no LightRetriever table of tiny-dense at width 4")
        .hasMessageContaining("tenbin light build --model tiny-dense --dimensions 4")
        .extracting(e -> ((PreconditionException) e).field())
        .isEqualTo("dimensions");

    light.buildCache(
        "tiny-dense", RowFormat.FP32, 4, 4, (rows, vocabulary) -> {}, Cancellation.NEVER);
    assertThat(light.dense("tiny-dense", List.of("apple banana"), 4, true).getFirst()).hasSize(4);
  }

  @Test
  void anInterruptedBuildResumesAtTheMissingChunk() throws Exception {
    build();
    Path folder = light.cacheFolder("tiny-dense");
    Path chunk = folder.resolve("rows-000001.bin");
    long before = Files.getLastModifiedTime(folder.resolve("rows-000000.bin")).toMillis();
    Files.delete(chunk);
    Thread.sleep(20);
    build();
    assertThat(chunk).exists();
    assertThat(Files.getLastModifiedTime(folder.resolve("rows-000000.bin")).toMillis())
        .isEqualTo(before);
  }

  @Test
  void servingWithoutACompleteCacheIsAPreconditionFailure() {
    assertThatThrownBy(() -> light.dense("tiny-dense", List.of("apple"), 0, true))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("build it first");
  }

  @Test
  void aCacheBuiltForAnotherRevisionIsRefused() throws Exception {
    build();
    Path manifest = light.cacheFolder("tiny-dense").resolve("manifest.json");
    Files.writeString(manifest, Files.readString(manifest).replace("\"test-rev\"", "\"old-rev\""));
    assertThatThrownBy(() -> light.dense("tiny-dense", List.of("apple"), 0, true))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("old-rev")
        .hasMessageContaining("rebuild");
  }

  @Test
  void aCacheOfAnotherWidthIsRebuiltAtTheModelsWidthNotReused() throws Exception {
    build();
    Path folder = light.cacheFolder("tiny-dense");
    Path manifest = folder.resolve("manifest.json");
    // As a card that once cut the model's output to 6 dimensions would have left it.
    Files.writeString(
        manifest,
        Files.readString(manifest)
            .replace("\"dimension\" : " + TinyModels.HIDDEN, "\"dimension\" : 6"));
    assertThat(Files.readString(manifest)).contains("\"dimension\" : 6");
    var rebuilt =
        light.buildCache(
            "tiny-dense", RowFormat.FP32, 0, 0, (rows, vocabulary) -> {}, Cancellation.NEVER);
    assertThat(rebuilt.reused()).isFalse();
    assertThat(rebuilt.manifest().dimension()).isEqualTo(TinyModels.HIDDEN);
    assertThat(light.dense("tiny-dense", List.of("apple"), 0, true).getFirst())
        .hasSize(TinyModels.HIDDEN);
  }

  @Test
  void sparseQueriesAreTokenCounts() {
    SparseVector counts = light.sparse("tiny-dense", List.of("apple banana apple")).getFirst();
    assertThat(counts.indices()).containsExactly(4, 5);
    assertThat(counts.values()).containsExactly(2f, 1f);
  }

  @Test
  void fp16CachesHoldHalfPrecisionRows() {
    LoadedModel model = core.model("tiny-dense");
    Path folder = tmp.resolve("fp16-cache");
    TokenEmbeddingCache.build(model, folder, 100, 8, 0, true, done -> {});
    TokenEmbeddingCache cache = TokenEmbeddingCache.load(folder);
    assertThat(cache.manifest().dtype()).isEqualTo("fp16");
    float[] full =
        core.encodeDense("tiny-dense", List.of("apple"), true, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(cache.row(4)).containsExactly(full, within(2e-3f));
  }

  @Test
  void aBatchDependentModelsRowsAreItsQueryVectorsBitForBitWhateverTheBatchSize() throws Exception {
    TinyModels.batchDependent(tmp.resolve("models"), "tiny-batch-dependent");
    var model = core.model("tiny-batch-dependent");
    Path folder = light.cacheFolder("tiny-batch-dependent");
    TokenEmbeddingCache.build(model, folder, 100, 8, 0, false, done -> {});
    TokenEmbeddingCache cache = TokenEmbeddingCache.load(folder);
    float[] apple =
        core.encodeDense("tiny-batch-dependent", List.of("apple"), true, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(cache.row(4)).isEqualTo(apple);
  }
}
