package dev.tenbin.encoder.light;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.model.ModelCard;
import dev.tenbin.encoder.onnx.OnnxModel;
import dev.tenbin.encoder.onnx.Pooler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * LightRetriever's token-embedding cache: every vocabulary token, wrapped in the model's query
 * prompt ({@code [CLS] prompt token [SEP]}), encoded through the full model with its pooling,
 * giving a [V, H] FP32 (or FP16) matrix. Stored as a versioned folder — {@code manifest.json} and
 * chunk files of {@code chunkRows} rows, each written whole and renamed into place — so an
 * interrupted build resumes at the first missing chunk.
 */
public final class TokenEmbeddingCache {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final CacheManifest manifest;
  private final float[] rows;

  private TokenEmbeddingCache(CacheManifest manifest, float[] rows) {
    this.manifest = manifest;
    this.rows = rows;
  }

  /** Where the cache of a model lives under a cache directory. */
  public static Path folder(Path cacheDirectory, ModelCard card) {
    String revision = card.resolvedSha().isEmpty() ? card.revision() : card.resolvedSha();
    return cacheDirectory
        .resolve("light")
        .resolve(card.id())
        .resolve(revision.isEmpty() ? "local" : revision);
  }

  /**
   * Builds (or resumes building) the cache of a model.
   *
   * @param limit encode only the first {@code limit} tokens (tests); 0 = the whole vocabulary
   * @param fp16 store rows as FP16 (half the size)
   * @param progress called with the number of rows done after each chunk
   */
  public static CacheManifest build(
      LoadedModel model,
      Path folder,
      int chunkRows,
      int batchSize,
      int limit,
      boolean fp16,
      IntConsumer progress) {
    ModelCard card = model.card();
    int vocabulary = vocabularySize(model.tokenizerJson());
    int size = limit > 0 ? Math.min(limit, vocabulary) : vocabulary;
    long[] template = promptTemplate(model, card.queryPrompt());
    int insertAt = template.length - trailingSpecials(model);
    try {
      Files.createDirectories(folder);
      CacheManifest manifest = readManifest(folder);
      if (manifest != null && !manifest.describes(card)) {
        // Made for another prompt or width (a card that once cut the model's output): rows of it
        // must not be resumed into, or read back as, this model's.
        discard(folder, manifest);
        manifest = null;
      }
      if (manifest == null) {
        manifest =
            new CacheManifest(
                CacheManifest.FORMAT_VERSION,
                card.id(),
                card.revision(),
                card.queryPrompt(),
                size,
                card.dimension(),
                fp16 ? "fp16" : "fp32",
                chunkRows,
                false);
        writeManifest(folder, manifest);
      }
      for (int chunk = 0; chunk < manifest.chunks(); chunk++) {
        Path file = chunkFile(folder, chunk);
        int from = chunk * manifest.chunkRows();
        int to = Math.min(manifest.vocabularySize(), from + manifest.chunkRows());
        if (!Files.exists(file)) {
          float[] values = new float[(to - from) * manifest.dimension()];
          for (int batchFrom = from; batchFrom < to; batchFrom += batchSize) {
            int batchTo = Math.min(to, batchFrom + batchSize);
            long[][] ids = new long[batchTo - batchFrom][];
            for (int token = batchFrom; token < batchTo; token++) {
              long[] input = new long[template.length + 1];
              System.arraycopy(template, 0, input, 0, insertAt);
              input[insertAt] = token;
              System.arraycopy(template, insertAt, input, insertAt + 1, template.length - insertAt);
              ids[token - batchFrom] = input;
            }
            OnnxModel.Output output = model.onnx().run(ids);
            for (int i = 0; i < ids.length; i++) {
              float[] pooled = Pooler.pool(output, i, ids[i].length, card.pooling());
              float[] row = Pooler.finish(pooled, manifest.dimension(), card.normalize());
              System.arraycopy(
                  row,
                  0,
                  values,
                  (batchFrom - from + i) * manifest.dimension(),
                  manifest.dimension());
            }
          }
          writeChunk(file, values, manifest.dtype().equals("fp16"));
        }
        progress.accept(to);
      }
      CacheManifest done = manifest.completed();
      writeManifest(folder, done);
      return done;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the LightRetriever cache in " + folder, e);
    }
  }

  /** Loads a complete cache. */
  public static TokenEmbeddingCache load(Path folder) {
    CacheManifest manifest;
    try {
      manifest = readManifest(folder);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (manifest == null || !manifest.complete()) {
      throw new PreconditionException(
          "model_id",
          "no complete LightRetriever cache in "
              + folder
              + "; build it first (tenbin light build --model ...)");
    }
    float[] rows = new float[manifest.vocabularySize() * manifest.dimension()];
    try {
      for (int chunk = 0; chunk < manifest.chunks(); chunk++) {
        float[] values = readChunk(chunkFile(folder, chunk), manifest.dtype().equals("fp16"));
        System.arraycopy(
            values, 0, rows, chunk * manifest.chunkRows() * manifest.dimension(), values.length);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the LightRetriever cache in " + folder, e);
    }
    return new TokenEmbeddingCache(manifest, rows);
  }

  public CacheManifest manifest() {
    return manifest;
  }

  /** Mean of the rows of the given token ids (ids outside the cache are skipped). */
  public float[] average(long[] tokenIds) {
    int dimension = manifest.dimension();
    float[] sum = new float[dimension];
    int used = 0;
    for (long id : tokenIds) {
      if (id < 0 || id >= manifest.vocabularySize()) {
        continue;
      }
      int offset = (int) id * dimension;
      for (int h = 0; h < dimension; h++) {
        sum[h] += rows[offset + h];
      }
      used++;
    }
    if (used > 0) {
      for (int h = 0; h < dimension; h++) {
        sum[h] /= used;
      }
    }
    return sum;
  }

  public float[] row(int tokenId) {
    return Arrays.copyOfRange(
        rows, tokenId * manifest.dimension(), (tokenId + 1) * manifest.dimension());
  }

  /** Vocabulary size from a tokenizer.json: WordPiece/BPE vocab maps and Unigram vocab lists. */
  public static int vocabularySize(byte[] tokenizerJson) {
    try {
      JsonNode root = JSON.readTree(tokenizerJson);
      JsonNode vocab = root.path("model").path("vocab");
      int size = vocab.size();
      for (JsonNode added : root.path("added_tokens")) {
        size = Math.max(size, added.path("id").asInt() + 1);
      }
      return size;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read tokenizer.json", e);
    }
  }

  private static long[] promptTemplate(LoadedModel model, String prompt) {
    return model.tokenizer().encode(java.util.List.of(prompt.isEmpty() ? "" : prompt)).ids()[0];
  }

  private static int trailingSpecials(LoadedModel model) {
    long[] with = model.tokenizer().encode(java.util.List.of("a")).ids()[0];
    long[] without = model.tokenizer().idsWithoutSpecialTokens("a");
    for (int start = 0; start + without.length <= with.length; start++) {
      if (Arrays.equals(Arrays.copyOfRange(with, start, start + without.length), without)) {
        return with.length - start - without.length;
      }
    }
    return 0;
  }

  private static void discard(Path folder, CacheManifest stale) throws IOException {
    for (int chunk = 0; chunk < stale.chunks(); chunk++) {
      Files.deleteIfExists(chunkFile(folder, chunk));
    }
    Files.deleteIfExists(folder.resolve("manifest.json"));
  }

  private static Path chunkFile(Path folder, int chunk) {
    return folder.resolve(String.format("rows-%06d.bin", chunk));
  }

  private static CacheManifest readManifest(Path folder) throws IOException {
    Path file = folder.resolve("manifest.json");
    return Files.exists(file) ? JSON.readValue(file.toFile(), CacheManifest.class) : null;
  }

  private static void writeManifest(Path folder, CacheManifest manifest) throws IOException {
    Path tmp = folder.resolve("manifest.json.tmp");
    JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), manifest);
    Files.move(
        tmp,
        folder.resolve("manifest.json"),
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  private static void writeChunk(Path file, float[] values, boolean fp16) throws IOException {
    ByteBuffer buffer =
        ByteBuffer.allocate(values.length * (fp16 ? 2 : 4)).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      if (fp16) {
        buffer.putShort(Float.floatToFloat16(v));
      } else {
        buffer.putFloat(v);
      }
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, buffer.array());
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static float[] readChunk(Path file, boolean fp16) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    float[] values = new float[buffer.remaining() / (fp16 ? 2 : 4)];
    for (int i = 0; i < values.length; i++) {
      values[i] = fp16 ? Float.float16ToFloat(buffer.getShort()) : buffer.getFloat();
    }
    return values;
  }
}
