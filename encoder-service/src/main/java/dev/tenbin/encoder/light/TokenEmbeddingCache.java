package dev.tenbin.encoder.light;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.EncodingPolicy;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.Pooler;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.onnx.OnnxModel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * LightRetriever's token-embedding cache: every vocabulary token, wrapped in the model's query
 * prompt ({@code [CLS] prompt token [SEP]}), encoded through the full model with its pooling,
 * giving a [V, W] matrix — W the card's dimension, or a Matryoshka width, in which case each row is
 * the token's embedding truncated to W and normalised on its own (a row per token at that width,
 * not a truncation of the mean). Stored as a versioned folder — {@code manifest.json} and chunk
 * files of {@code chunkRows} rows in a {@link RowFormat} (fp32, fp16, or int8 with a per-row
 * scale), each written whole and renamed into place — so an interrupted build resumes at the first
 * missing chunk. A loaded cache memory-maps the chunk files instead of reading them onto the heap,
 * so a 150K-token vocabulary costs page cache, not heap. A mapping is never unmapped explicitly:
 * the JDK unmaps a {@link MappedByteBuffer} only once it is unreachable, i.e. once no cache object,
 * hence no running query, can read it. A rebuild replaces files by rename, so a mapped old file
 * stays intact while it is read.
 */
public final class TokenEmbeddingCache {
  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final CacheManifest manifest;
  private final RowFormat format;
  private final long rowBytes;
  private final ByteBuffer[] chunks;

  private TokenEmbeddingCache(CacheManifest manifest, ByteBuffer[] chunks) {
    this.manifest = manifest;
    this.format = RowFormat.of(manifest.dtype());
    this.rowBytes = format.rowBytes(manifest.dimension());
    this.chunks = chunks;
  }

  /** Where the full-width cache of a model lives under a cache directory. */
  public static Path folder(Path cacheDirectory, ModelCard card) {
    return folder(cacheDirectory, card, card.dimension());
  }

  /**
   * Where the cache of a model at {@code width} lives: the full-width folder, or a sibling named
   * {@code <revision>-dim<width>} for a Matryoshka width.
   */
  public static Path folder(Path cacheDirectory, ModelCard card, int width) {
    String revision = card.resolvedSha().isEmpty() ? card.revision() : card.resolvedSha();
    String name = revision.isEmpty() ? "local" : revision;
    return cacheDirectory
        .resolve("light")
        .resolve(card.id())
        .resolve(width == card.dimension() ? name : name + "-dim" + width);
  }

  /**
   * Builds (or resumes building) the full-width cache of a model.
   *
   * @param limit encode only the first {@code limit} tokens (tests); 0 = the whole vocabulary
   * @param fp16 store rows as FP16 (half the size), else FP32
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
    return build(
        model,
        folder,
        chunkRows,
        batchSize,
        limit,
        fp16 ? RowFormat.FP16 : RowFormat.FP32,
        model.card().dimension(),
        progress);
  }

  /**
   * Builds (or resumes building) the cache of a model at {@code width}. A partial cache made by
   * this format for the same model, prompt and width is resumed (in its own row format); anything
   * else in the folder (an older format, another revision, prompt or width) is deleted first.
   *
   * @param limit encode only the first {@code limit} tokens (tests); 0 = the whole vocabulary
   * @param format row storage of a new cache
   * @param width the card's dimension, or one of its Matryoshka dimensions
   * @param progress called with the number of rows done after each chunk
   */
  public static CacheManifest build(
      LoadedModel model,
      Path folder,
      int chunkRows,
      int batchSize,
      int limit,
      RowFormat format,
      int width,
      IntConsumer progress) {
    ModelCard card = model.card();
    if (width != card.dimension()) {
      card.resolveDimensions(width, "dimensions");
    }
    int vocabulary = vocabularySize(model.tokenizerJson());
    int size = limit > 0 ? Math.min(limit, vocabulary) : vocabulary;
    long[] template = promptTemplate(model, card.queryPrompt());
    // A batch-dependent model is encoded one text per pass here too: its rows are then the
    // vectors the encoder gives each token's query, whatever the batch size asked for.
    int passSize = model.encodingPolicy() == EncodingPolicy.ONE_TEXT_PER_PASS ? 1 : batchSize;
    int insertAt = template.length - trailingSpecials(model);
    try {
      Files.createDirectories(folder);
      CacheManifest manifest = readManifestOrNull(folder);
      if (manifest != null && !sameSource(manifest, card, width, size)) {
        clear(folder);
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
                width,
                format.manifestName(),
                chunkRows,
                false);
        writeManifest(folder, manifest);
      }
      RowFormat rows = RowFormat.of(manifest.dtype());
      for (int chunk = 0; chunk < manifest.chunks(); chunk++) {
        Path file = chunkFile(folder, chunk);
        int from = chunk * manifest.chunkRows();
        int to = Math.min(manifest.vocabularySize(), from + manifest.chunkRows());
        if (!Files.exists(file)) {
          ByteBuffer out =
              ByteBuffer.allocate(Math.toIntExact((to - from) * rows.rowBytes(width)))
                  .order(ByteOrder.LITTLE_ENDIAN);
          for (int batchFrom = from; batchFrom < to; batchFrom += passSize) {
            int batchTo = Math.min(to, batchFrom + passSize);
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
              rows.write(Pooler.finish(pooled, width, card.normalize()), out);
            }
          }
          Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
          Files.write(tmp, out.array());
          Files.move(
              tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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

  /** Whether a manifest in a folder is this format's, for this model, prompt, width and size. */
  private static boolean sameSource(CacheManifest manifest, ModelCard card, int width, int size) {
    return manifest.formatVersion() == CacheManifest.FORMAT_VERSION
        && manifest.describes(card, width)
        && manifest.vocabularySize() == size;
  }

  /** Deletes a cache folder's manifest and row files (nothing else in it). */
  private static void clear(Path folder) throws IOException {
    Files.deleteIfExists(folder.resolve("manifest.json"));
    try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, "rows-*.bin*")) {
      for (Path file : files) {
        Files.deleteIfExists(file);
      }
    }
  }

  /**
   * Loads a complete cache by memory-mapping its chunk files. A cache in another format version is
   * refused (rebuild it), never read.
   */
  public static TokenEmbeddingCache load(Path folder) {
    CacheManifest manifest = readManifestOrNull(folder);
    if (manifest == null || !manifest.complete()) {
      throw new PreconditionException(
          "model_id",
          "no complete LightRetriever cache in "
              + folder
              + "; build it first (tenbin light build --model ...)");
    }
    if (manifest.formatVersion() != CacheManifest.FORMAT_VERSION) {
      throw new PreconditionException(
          "model_id",
          "the LightRetriever cache in "
              + folder
              + " has format version "
              + manifest.formatVersion()
              + ", this server reads "
              + CacheManifest.FORMAT_VERSION
              + "; rebuild it (tenbin light build --model ...)");
    }
    long rowBytes = RowFormat.of(manifest.dtype()).rowBytes(manifest.dimension());
    ByteBuffer[] chunks = new ByteBuffer[manifest.chunks()];
    try {
      for (int chunk = 0; chunk < chunks.length; chunk++) {
        int rows =
            Math.min(
                manifest.chunkRows(), manifest.vocabularySize() - chunk * manifest.chunkRows());
        try (FileChannel channel = FileChannel.open(chunkFile(folder, chunk))) {
          if (channel.size() != rows * rowBytes) {
            throw new PreconditionException(
                "model_id",
                "the LightRetriever cache chunk "
                    + chunkFile(folder, chunk)
                    + " has "
                    + channel.size()
                    + " bytes, not "
                    + rows * rowBytes
                    + "; rebuild it");
          }
          MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
          chunks[chunk] = mapped.order(ByteOrder.LITTLE_ENDIAN);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the LightRetriever cache in " + folder, e);
    }
    return new TokenEmbeddingCache(manifest, chunks);
  }

  public CacheManifest manifest() {
    return manifest;
  }

  /** Bytes of rows mapped from the cache's files (none of them on the heap). */
  public long mappedBytes() {
    long bytes = 0;
    for (ByteBuffer chunk : chunks) {
      bytes += chunk.capacity();
    }
    return bytes;
  }

  /** Mean of the rows of the given token ids, in FP32 (ids outside the cache are skipped). */
  public float[] average(long[] tokenIds) {
    float[] sum = new float[manifest.dimension()];
    int used = 0;
    for (long id : tokenIds) {
      if (id < 0 || id >= manifest.vocabularySize()) {
        continue;
      }
      addRow((int) id, sum);
      used++;
    }
    if (used > 0) {
      for (int h = 0; h < sum.length; h++) {
        sum[h] /= used;
      }
    }
    return sum;
  }

  /** The row of a token, widened to FP32. */
  public float[] row(int tokenId) {
    float[] row = new float[manifest.dimension()];
    addRow(tokenId, row);
    return row;
  }

  private void addRow(int tokenId, float[] sum) {
    int chunk = tokenId / manifest.chunkRows();
    int offset = Math.toIntExact((tokenId - chunk * manifest.chunkRows()) * rowBytes);
    format.addTo(chunks[chunk], offset, sum);
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

  private static Path chunkFile(Path folder, int chunk) {
    return folder.resolve(String.format("rows-%06d.bin", chunk));
  }

  /** The manifest in a folder, or null when there is none or it cannot be read. */
  private static CacheManifest readManifestOrNull(Path folder) {
    Path file = folder.resolve("manifest.json");
    try {
      return Files.exists(file) ? JSON.readValue(file.toFile(), CacheManifest.class) : null;
    } catch (IOException e) {
      return null;
    }
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
}
