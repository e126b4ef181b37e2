package dev.tenbin.encoder.light;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.Pooler;
import dev.tenbin.encoder.SparseVector;
import dev.tenbin.model.card.ModelCard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;

/**
 * LightRetriever's query side, with no model inference: dense = the mean of the cached rows of the
 * query's tokens (special tokens and prompt excluded), optionally normalised; sparse = token counts
 * over the tokenizer vocabulary, optionally only the {@code k} highest.
 *
 * <p>A request for a width W below the model's (a Matryoshka width for models trained for it, a
 * plain truncation for others, as on the encoder) is served from the width-W table when one was
 * built (each row the token's embedding truncated to W and normalised on its own; the query is the
 * mean of those rows); without that table the request is refused (FAILED_PRECONDITION naming {@code
 * dimensions}), never answered by truncating the full-width mean, which gives other vectors.
 */
public final class LightQueryEncoder {
  private final EncoderCore core;
  private final Path cacheDirectory;
  private final Map<String, TokenEmbeddingCache> caches = new ConcurrentHashMap<>();

  public LightQueryEncoder(EncoderCore core, Path cacheDirectory) {
    this.core = core;
    this.cacheDirectory = cacheDirectory;
  }

  /** Rows per cache chunk file; a resumed build restarts at the first missing chunk. */
  static final int CHUNK_ROWS = 2048;

  /** Vocabulary tokens per forward pass when the caller does not choose. */
  public static final int DEFAULT_BUILD_BATCH = 256;

  /** The largest batch a build accepts. */
  public static final int MAX_BUILD_BATCH = 4096;

  /**
   * A finished cache.
   *
   * @param manifest its manifest (vocabulary size, dimension, dtype)
   * @param folder where it lives under the service's cache directory
   * @param reused whether it was already complete (nothing encoded)
   */
  public record BuiltCache(CacheManifest manifest, Path folder, boolean reused) {}

  private final Map<Path, Object> buildLocks = new ConcurrentHashMap<>();

  /**
   * Builds the token-embedding cache of {@code modelId} in the service's cache directory, resuming
   * a partial one; a complete cache is returned as it is. One build per model runs at a time (a
   * second caller waits, then finds the cache complete). The model is held loaded while it builds.
   *
   * @param format row storage of a new cache
   * @param width the card's dimension (0 means it), or a narrower width (1..dimension, as the
   *     encoder's {@code dimensions})
   * @param batchSize tokens per forward pass, 1..{@value #MAX_BUILD_BATCH}; 0 = {@value
   *     #DEFAULT_BUILD_BATCH}
   * @param progress told (rows done, vocabulary size) after each chunk
   * @param cancellation checked between chunks: a cancelled build stops there, and resumes later
   */
  public BuiltCache buildCache(
      String modelId,
      RowFormat format,
      int width,
      int batchSize,
      ProgressListener progress,
      Cancellation cancellation) {
    if (batchSize < 0 || batchSize > MAX_BUILD_BATCH) {
      throw new InvalidInputException(
          "batch_size",
          "batch_size must be between 1 and "
              + MAX_BUILD_BATCH
              + " (0: "
              + DEFAULT_BUILD_BATCH
              + "), got "
              + batchSize);
    }
    try (var handle = core.acquire(modelId)) {
      LoadedModel model = handle.model();
      int dims = model.card().resolveDimensions(width, "dimensions");
      Path folder = TokenEmbeddingCache.folder(cacheDirectory, model.card(), dims);
      synchronized (buildLocks.computeIfAbsent(folder, f -> new Object())) {
        TokenEmbeddingCache complete = completeCache(folder);
        if (complete != null && complete.manifest().describes(model.card(), dims)) {
          return new BuiltCache(complete.manifest(), folder, true);
        }
        int vocabulary = TokenEmbeddingCache.vocabularySize(model.tokenizerJson());
        IntConsumer rows =
            done -> {
              progress.rowsDone(done, vocabulary);
              cancellation.throwIfCancelled();
            };
        CacheManifest manifest =
            TokenEmbeddingCache.build(
                model,
                folder,
                CHUNK_ROWS,
                batchSize == 0 ? DEFAULT_BUILD_BATCH : batchSize,
                0,
                format,
                dims,
                rows);
        caches.remove(cacheKey(modelId, dims));
        return new BuiltCache(manifest, folder, false);
      }
    }
  }

  /** Told how far a cache build has got. */
  @FunctionalInterface
  public interface ProgressListener {
    void rowsDone(int rows, int vocabularySize);
  }

  /**
   * The complete cache in {@code folder}, or null when there is none or it is partial or
   * unreadable.
   */
  private static TokenEmbeddingCache completeCache(Path folder) {
    try {
      return Files.isDirectory(folder) ? TokenEmbeddingCache.load(folder) : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  public Path cacheFolder(String modelId) {
    return TokenEmbeddingCache.folder(cacheDirectory, core.info(modelId).card());
  }

  public List<float[]> dense(
      String modelId, List<String> queries, int dimensions, boolean normalize) {
    validate(queries);
    try (var handle = core.acquire(modelId)) {
      LoadedModel model = handle.model();
      ModelCard card = model.card();
      int dims = card.resolveDimensions(dimensions, "dimensions");
      TokenEmbeddingCache cache = dims < card.dimension() ? narrowCache(card, dims) : null;
      if (dims < card.dimension() && cache == null) {
        throw new PreconditionException(
            "dimensions",
            "no LightRetriever table of "
                + modelId
                + " at width "
                + dims
                + " (each token's row truncated and normalised at that width; truncating the"
                + " full-width mean instead gives other vectors); build it first: tenbin light"
                + " build --model "
                + modelId
                + " --dimensions "
                + dims);
      }
      if (cache == null) {
        cache =
            caches.computeIfAbsent(
                cacheKey(modelId, card.dimension()),
                key ->
                    checked(
                        TokenEmbeddingCache.load(
                            TokenEmbeddingCache.folder(cacheDirectory, card, card.dimension())),
                        card,
                        card.dimension()));
      }
      List<float[]> vectors = new ArrayList<>(queries.size());
      for (int i = 0; i < queries.size(); i++) {
        float[] mean = cache.average(tokens(model, queries, i));
        vectors.add(
            normalize ? Pooler.finish(mean, dims, true) : java.util.Arrays.copyOf(mean, dims));
      }
      return vectors;
    }
  }

  private static String cacheKey(String modelId, int width) {
    return modelId + "@" + width;
  }

  /** The complete width-{@code dims} table of a model when one was built for it, else null. */
  private TokenEmbeddingCache narrowCache(ModelCard card, int dims) {
    String key = cacheKey(card.id(), dims);
    TokenEmbeddingCache cached = caches.get(key);
    if (cached != null) {
      return cached;
    }
    TokenEmbeddingCache found =
        completeCache(TokenEmbeddingCache.folder(cacheDirectory, card, dims));
    if (found == null || !found.manifest().describes(card, dims)) {
      return null;
    }
    TokenEmbeddingCache raced = caches.putIfAbsent(key, found);
    return raced == null ? found : raced;
  }

  /** A cache made for another model, revision, prompt or width is refused, not served. */
  private TokenEmbeddingCache checked(TokenEmbeddingCache cache, ModelCard card, int width) {
    CacheManifest manifest = cache.manifest();
    if (!manifest.describes(card, width)) {
      throw new PreconditionException(
          "model_id",
          "the LightRetriever cache in "
              + cacheFolder(card.id())
              + " was built for "
              + manifest.modelId()
              + " revision '"
              + manifest.modelRevision()
              + "' (prompt '"
              + manifest.prompt()
              + "', "
              + manifest.dimension()
              + " dimensions), not "
              + card.id()
              + " revision '"
              + card.revision()
              + "'; rebuild it");
    }
    return cache;
  }

  /** Token counts of each query over the vocabulary, every term kept. */
  public List<SparseVector> sparse(String modelId, List<String> queries) {
    return sparse(modelId, queries, 0);
  }

  /**
   * Token counts of each query over the vocabulary, keeping only the {@code topK} highest-count
   * terms (ties: the lower token id first); 0 keeps every term. Indices come out ascending.
   */
  public List<SparseVector> sparse(String modelId, List<String> queries, int topK) {
    if (topK < 0) {
      throw new InvalidInputException(
          "sparse_top_k", "sparse_top_k must not be negative (0 keeps every term), got " + topK);
    }
    validate(queries);
    try (var handle = core.acquire(modelId)) {
      LoadedModel model = handle.model();
      List<SparseVector> vectors = new ArrayList<>(queries.size());
      for (int i = 0; i < queries.size(); i++) {
        TreeMap<Integer, Integer> counts = new TreeMap<>();
        for (long id : tokens(model, queries, i)) {
          counts.merge((int) id, 1, Integer::sum);
        }
        int[] indices = new int[counts.size()];
        float[] values = new float[counts.size()];
        int j = 0;
        for (var entry : counts.entrySet()) {
          indices[j] = entry.getKey();
          values[j++] = entry.getValue();
        }
        vectors.add(SparseTopK.keep(new SparseVector(indices, values), topK));
      }
      return vectors;
    }
  }

  private void validate(List<String> queries) {
    if (queries.isEmpty()) {
      throw new InvalidInputException("queries", "at least one query is required");
    }
    core.checkRequestChars(queries);
    int limit = core.config().maxInputsPerRequest();
    if (queries.size() > limit) {
      throw new InvalidInputException(
          "queries", "at most " + limit + " queries per request, got " + queries.size());
    }
    for (int i = 0; i < queries.size(); i++) {
      String query = queries.get(i);
      if (query != null && query.length() > core.config().maxTextChars()) {
        throw new InvalidInputException(
            "queries[" + i + "]",
            "query "
                + i
                + " has "
                + query.length()
                + " characters; the limit is "
                + core.config().maxTextChars());
      }
    }
  }

  private static long[] tokens(LoadedModel model, List<String> queries, int i) {
    String query = queries.get(i);
    if (query == null || query.isBlank()) {
      throw new InvalidInputException(
          "queries[" + i + "]", "query " + i + " is empty or whitespace only");
    }
    long[] ids = model.tokenizer().idsWithoutSpecialTokens(query);
    if (ids.length == 0) {
      throw new InvalidInputException("queries[" + i + "]", "query " + i + " has no tokens");
    }
    return ids;
  }
}
