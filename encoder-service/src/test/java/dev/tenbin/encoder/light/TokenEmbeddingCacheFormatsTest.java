package dev.tenbin.encoder.light;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.Pooler;
import dev.tenbin.encoder.SparseVector;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.model.card.Pooling;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The version-2 cache on a model with a 150K-token vocabulary: memory-mapped rows in fp32, fp16 or
 * int8 with a per-row scale (error bounded against fp32), old formats rebuilt, Matryoshka tables
 * with a row per token at their width, and sparse top-k.
 */
class TokenEmbeddingCacheFormatsTest {
  static final int WORDS = 150_000;
  static final int VOCABULARY = WORDS + 4;
  static final int HIDDEN = 32;
  static final int NARROW = 16;

  @TempDir Path tmp;
  EncoderCore core;
  LightQueryEncoder light;
  LoadedModel model;

  @BeforeEach
  void start() throws IOException {
    Path dir = tmp.resolve("models").resolve("wide-vocab");
    Files.createDirectories(dir);
    Files.write(
        dir.resolve("model.onnx"),
        TinyOnnxModels.embeddingEncoder(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 11), VOCABULARY, HIDDEN, false));
    Files.write(
        dir.resolve("tokenizer.json"),
        TinyOnnxModels.wordLevelTokenizer(
            IntStream.range(0, WORDS).mapToObj(i -> "w" + i).toList()));
    LocalModelDirectory.writeCard(
        dir,
        new ModelCard(
            "wide-vocab",
            "rev-1",
            "",
            "model.onnx",
            "tokenizer.json",
            Pooling.MEAN,
            true,
            HIDDEN,
            List.of(NARROW),
            32,
            "w7 ",
            "",
            OutputKind.DENSE,
            100,
            100,
            ""));
    core =
        new EncoderCore(EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")));
    light = new LightQueryEncoder(core, tmp.resolve("cache"));
    model = core.model("wide-vocab");
  }

  @AfterEach
  void stop() {
    core.close();
  }

  private TokenEmbeddingCache built(RowFormat format, int width) {
    Path folder = tmp.resolve(format.manifestName() + "-" + width);
    long start = System.nanoTime();
    CacheManifest manifest =
        TokenEmbeddingCache.build(model, folder, 8192, 4096, 0, format, width, done -> {});
    double seconds = (System.nanoTime() - start) / 1e9;
    TokenEmbeddingCache cache = TokenEmbeddingCache.load(folder);
    System.out.printf(
        "light cache %s: %d tokens x %d, built in %.2f s, %d bytes mapped (%d on disk)%n",
        manifest.dtype(),
        manifest.vocabularySize(),
        manifest.dimension(),
        seconds,
        cache.mappedBytes(),
        folderBytes(folder));
    return cache;
  }

  private static long folderBytes(Path folder) {
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aLargeVocabularyIsMappedFromFilesOfTheRowFormatsSize() {
    for (RowFormat format : RowFormat.values()) {
      TokenEmbeddingCache cache = built(format, HIDDEN);
      assertThat(cache.manifest().vocabularySize()).isEqualTo(VOCABULARY);
      assertThat(cache.manifest().formatVersion()).isEqualTo(CacheManifest.FORMAT_VERSION);
      assertThat(cache.mappedBytes())
          .as("every row mapped, at the format's size")
          .isEqualTo(VOCABULARY * format.rowBytes(HIDDEN));
    }
    assertThat(RowFormat.FP16.rowBytes(HIDDEN)).isEqualTo(2L * HIDDEN);
    assertThat(RowFormat.INT8.rowBytes(HIDDEN)).isEqualTo(4L + HIDDEN);
  }

  @Test
  void aRowNearTheEndOfTheVocabularyIsThatTokensFullEncoding() {
    TokenEmbeddingCache cache = built(RowFormat.FP32, HIDDEN);
    int token = VOCABULARY - 1; // "w149999"
    float[] full =
        core.encodeDense("wide-vocab", List.of("w" + (WORDS - 1)), true, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(cache.row(token)).containsExactly(full, within(1e-6f));
  }

  @Test
  void fp16AndInt8RowsAndQueryMeansStayWithinBoundsOfFp32() {
    TokenEmbeddingCache fp32 = built(RowFormat.FP32, HIDDEN);
    TokenEmbeddingCache fp16 = built(RowFormat.FP16, HIDDEN);
    TokenEmbeddingCache int8 = built(RowFormat.INT8, HIDDEN);
    double maxFp16 = 0;
    double maxInt8 = 0;
    for (int token = 0; token < VOCABULARY; token += 7) {
      float[] exact = fp32.row(token);
      float[] half = fp16.row(token);
      float[] quarter = int8.row(token);
      float rowMax = 0;
      for (float v : exact) {
        rowMax = Math.max(rowMax, Math.abs(v));
      }
      for (int h = 0; h < HIDDEN; h++) {
        maxFp16 = Math.max(maxFp16, Math.abs(half[h] - exact[h]));
        double error = Math.abs(quarter[h] - exact[h]);
        maxInt8 = Math.max(maxInt8, error);
        assertThat(error)
            .as("int8 error within half a step of its row's scale")
            .isLessThanOrEqualTo(rowMax / 127.0 / 2 * 1.0001 + 1e-7);
      }
    }
    Random random = new Random(5);
    double minCosFp16 = 1;
    double minCosInt8 = 1;
    for (int q = 0; q < 500; q++) {
      long[] ids = new long[1 + random.nextInt(12)];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = 4L + random.nextInt(WORDS);
      }
      float[] exact = fp32.average(ids);
      minCosFp16 = Math.min(minCosFp16, cosine(exact, fp16.average(ids)));
      minCosInt8 = Math.min(minCosInt8, cosine(exact, int8.average(ids)));
    }
    System.out.printf(
        "row max abs error vs fp32: fp16 %.3g, int8 %.3g; query-mean cosine vs fp32 (min of 500):"
            + " fp16 %.8f, int8 %.8f%n",
        maxFp16, maxInt8, minCosFp16, minCosInt8);
    assertThat(maxFp16).as("fp16 of unit-norm rows: within 2^-11 relative").isLessThan(5e-4);
    assertThat(minCosFp16).isGreaterThan(0.99999);
    assertThat(minCosInt8).isGreaterThan(0.9995);
  }

  private static double cosine(float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += (double) a[i] * b[i];
      na += (double) a[i] * a[i];
      nb += (double) b[i] * b[i];
    }
    return dot / Math.sqrt(na * nb);
  }

  @Test
  void aCacheInTheOldFormatIsRefusedThenRebuiltNotMisread() throws IOException {
    light.buildCache("wide-vocab", RowFormat.FP16, 0, 4096, (r, v) -> {}, Cancellation.NEVER);
    Path manifest = light.cacheFolder("wide-vocab").resolve("manifest.json");
    Files.writeString(
        manifest,
        Files.readString(manifest)
            .replace("\"format_version\" : 2", "\"format_version\" : 1")
            .replace("\"fp16\"", "\"fp32\""));
    assertThatThrownBy(() -> light.dense("wide-vocab", List.of("w1 w2"), 0, true))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("format version 1")
        .hasMessageContaining("rebuild");
    LightQueryEncoder.BuiltCache rebuilt =
        light.buildCache("wide-vocab", RowFormat.FP16, 0, 4096, (r, v) -> {}, Cancellation.NEVER);
    assertThat(rebuilt.reused()).as("an old-format cache is rebuilt").isFalse();
    assertThat(rebuilt.manifest().formatVersion()).isEqualTo(CacheManifest.FORMAT_VERSION);
    assertThat(rebuilt.manifest().dtype()).isEqualTo("fp16");
    assertThat(light.dense("wide-vocab", List.of("w1 w2"), 0, true).getFirst()).hasSize(HIDDEN);
  }

  @Test
  void aLoadedCacheStaysReadableWhileItsFolderIsRebuilt() throws IOException {
    Path folder = tmp.resolve("rebuilt");
    TokenEmbeddingCache.build(model, folder, 8192, 4096, 0, RowFormat.FP32, HIDDEN, d -> {});
    TokenEmbeddingCache old = TokenEmbeddingCache.load(folder);
    float[] before = old.row(123_456);
    Path manifest = folder.resolve("manifest.json");
    Files.writeString(manifest, Files.readString(manifest).replace("\"rev-1\"", "\"rev-0\""));
    TokenEmbeddingCache.build(model, folder, 8192, 4096, 0, RowFormat.INT8, HIDDEN, d -> {});
    assertThat(TokenEmbeddingCache.load(folder).manifest().dtype()).isEqualTo("int8");
    assertThat(old.row(123_456))
        .as("the old mapping still reads its own rows after the files were replaced")
        .containsExactly(before);
  }

  @Test
  void aMatryoshkaTableHoldsEachTokenTruncatedAndNormalisedAtItsWidth() {
    light.buildCache("wide-vocab", RowFormat.FP32, 0, 4096, (r, v) -> {}, Cancellation.NEVER);
    TokenEmbeddingCache full = TokenEmbeddingCache.load(light.cacheFolder("wide-vocab"));
    LightQueryEncoder.BuiltCache narrow =
        light.buildCache(
            "wide-vocab", RowFormat.FP32, NARROW, 4096, (r, v) -> {}, Cancellation.NEVER);
    assertThat(narrow.manifest().dimension()).isEqualTo(NARROW);
    assertThat(narrow.folder()).isNotEqualTo(light.cacheFolder("wide-vocab"));
    TokenEmbeddingCache table = TokenEmbeddingCache.load(narrow.folder());
    // Row of "w42" (id 46): the model's encoding of "w42" truncated to 16, then normalised.
    float[] expected =
        core.encodeDense("wide-vocab", List.of("w42"), true, NARROW, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(table.row(46)).containsExactly(expected, within(1e-6f));
    // A query at width 16 is the normalised mean of those rows ...
    float[] mean = new float[NARROW];
    for (int d = 0; d < NARROW; d++) {
      mean[d] = (table.row(46)[d] + table.row(47)[d]) / 2;
    }
    float[] query = light.dense("wide-vocab", List.of("w42 w43"), NARROW, true).getFirst();
    assertThat(query).containsExactly(Pooler.finish(mean, NARROW, true), within(1e-6f));
    // ... which is not the full-width mean truncated afterwards.
    float[] fullMean = new float[HIDDEN];
    for (int d = 0; d < HIDDEN; d++) {
      fullMean[d] = (full.row(46)[d] + full.row(47)[d]) / 2;
    }
    float[] truncatedAfter = Pooler.finish(fullMean, NARROW, true);
    double difference = 0;
    for (int d = 0; d < NARROW; d++) {
      difference = Math.max(difference, Math.abs(truncatedAfter[d] - query[d]));
    }
    assertThat(difference).isGreaterThan(1e-4);
    assertThatThrownBy(
            () ->
                light.buildCache(
                    "wide-vocab",
                    RowFormat.FP32,
                    HIDDEN + 1,
                    4096,
                    (r, v) -> {},
                    Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dimensions");
  }

  @Test
  void sparseTopKKeepsTheHighestWeightTermsInIndexOrder() {
    String text = "w5 w1 w5 w9 w9 w9 w2";
    SparseVector all = light.sparse("wide-vocab", List.of(text)).getFirst();
    assertThat(all.indices()).containsExactly(5, 6, 9, 13);
    SparseVector top2 = light.sparse("wide-vocab", List.of(text), 2).getFirst();
    assertThat(top2.indices()).containsExactly(9, 13);
    assertThat(top2.values()).containsExactly(2f, 3f);
    SparseVector tie = light.sparse("wide-vocab", List.of("w3 w1 w2"), 1).getFirst();
    assertThat(tie.indices()).as("ties go to the lower token id").containsExactly(5);
    assertThat(light.sparse("wide-vocab", List.of(text), 10).getFirst().indices())
        .containsExactly(all.indices());
    assertThatThrownBy(() -> light.sparse("wide-vocab", List.of(text), -1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("sparse_top_k");
  }
}
