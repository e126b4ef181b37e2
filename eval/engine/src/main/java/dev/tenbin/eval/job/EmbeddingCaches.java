package dev.tenbin.eval.job;

import dev.tenbin.eval.cache.EmbeddingCache;
import dev.tenbin.eval.candidates.CandidateSetBuilder;
import dev.tenbin.eval.plan.RetrievalHooks;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import java.nio.file.Path;

/**
 * The embedding cache a job's retrieval classes encode through: {@code <cache-dir>/embeddings},
 * keyed by model revision, prompt, maximum length and text hash, shared by every job that uses the
 * same cache folder, so variants and reruns never re-encode.
 */
public final class EmbeddingCaches {
  private EmbeddingCaches() {}

  /** The embedding cache under {@code cacheDirectory}. */
  public static EmbeddingCache open(Path cacheDirectory) {
    return EmbeddingCache.open(cacheDirectory.resolve("embeddings"));
  }

  /**
   * Hooks that encode through {@code cache}; with {@code lightCaches} non-null, LightRetriever
   * caches the encoder lacks are built (by the encoder) before their first use.
   */
  static RetrievalHooks hook(EmbeddingCache cache, LightCaches lightCaches) {
    return new RetrievalHooks() {
      @Override
      public void prepareLightCache(String model, int dimensions, EncodeProgress progress) {
        if (lightCaches != null) {
          lightCaches.ensure(model, dimensions, progress);
        }
      }

      @Override
      public DenseRetrieval dense(DenseRetrieval retrieval) {
        return retrieval.withEmbeddingCache(cache);
      }

      @Override
      public SparseRetrieval sparse(SparseRetrieval retrieval) {
        return retrieval.withEmbeddingCache(cache);
      }

      @Override
      public MultiVectorRetrieval multiVector(MultiVectorRetrieval retrieval) {
        return retrieval.withEmbeddingCache(cache);
      }

      @Override
      public CandidateSetBuilder candidates(CandidateSetBuilder builder) {
        return builder.withEmbeddingCache(cache);
      }
    };
  }
}
