package dev.tenbin.encoder.light;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.LoadedModel;
import dev.tenbin.encoder.SparseVector;
import dev.tenbin.encoder.model.ModelCard;
import dev.tenbin.encoder.onnx.Pooler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * LightRetriever's query side, with no model inference: dense = the mean of the cached rows of the
 * query's tokens (special tokens and prompt excluded), optionally truncated and normalised;
 * sparse = token counts over the tokenizer vocabulary.
 */
public final class LightQueryEncoder {
  private final EncoderCore core;
  private final Path cacheDirectory;
  private final Map<String, TokenEmbeddingCache> caches = new ConcurrentHashMap<>();

  public LightQueryEncoder(EncoderCore core, Path cacheDirectory) {
    this.core = core;
    this.cacheDirectory = cacheDirectory;
  }

  public Path cacheFolder(String modelId) {
    return TokenEmbeddingCache.folder(cacheDirectory, core.info(modelId).card());
  }

  public List<float[]> dense(String modelId, List<String> queries, int dimensions, boolean normalize) {
    validate(queries);
    try (var handle = core.acquire(modelId)) {
      LoadedModel model = handle.model();
      int dims = model.card().resolveDimensions(dimensions, "dimensions");
      TokenEmbeddingCache cache =
          caches.computeIfAbsent(modelId, id -> checked(TokenEmbeddingCache.load(cacheFolder(id)), model.card()));
      List<float[]> vectors = new ArrayList<>(queries.size());
      for (int i = 0; i < queries.size(); i++) {
        float[] mean = cache.average(tokens(model, queries, i));
        vectors.add(normalize ? Pooler.finish(mean, dims, true) : java.util.Arrays.copyOf(mean, dims));
      }
      return vectors;
    }
  }

  /** A cache made for another model, revision, prompt or dimension is refused, not served. */
  private TokenEmbeddingCache checked(TokenEmbeddingCache cache, ModelCard card) {
    CacheManifest manifest = cache.manifest();
    if (!manifest.modelId().equals(card.id())
        || !manifest.modelRevision().equals(card.revision())
        || !manifest.prompt().equals(card.queryPrompt())
        || manifest.dimension() != card.dimension()) {
      throw new PreconditionException(
          "model_id",
          "the LightRetriever cache in " + cacheFolder(card.id()) + " was built for " + manifest.modelId() + " revision '"
              + manifest.modelRevision() + "' (prompt '" + manifest.prompt() + "', " + manifest.dimension()
              + " dimensions), not " + card.id() + " revision '" + card.revision() + "'; rebuild it");
    }
    return cache;
  }

  public List<SparseVector> sparse(String modelId, List<String> queries) {
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
        vectors.add(new SparseVector(indices, values));
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
      throw new InvalidInputException("queries", "at most " + limit + " queries per request, got " + queries.size());
    }
    for (int i = 0; i < queries.size(); i++) {
      String query = queries.get(i);
      if (query != null && query.length() > core.config().maxTextChars()) {
        throw new InvalidInputException(
            "queries[" + i + "]",
            "query " + i + " has " + query.length() + " characters; the limit is " + core.config().maxTextChars());
      }
    }
  }

  private static long[] tokens(LoadedModel model, List<String> queries, int i) {
    String query = queries.get(i);
    if (query == null || query.isBlank()) {
      throw new InvalidInputException("queries[" + i + "]", "query " + i + " is empty or whitespace only");
    }
    long[] ids = model.tokenizer().idsWithoutSpecialTokens(query);
    if (ids.length == 0) {
      throw new InvalidInputException("queries[" + i + "]", "query " + i + " has no tokens");
    }
    return ids;
  }
}
