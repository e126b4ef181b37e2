package dev.tenbin.eval.plan;

import dev.tenbin.eval.candidates.CandidateSetBuilder;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.SparseRetrieval;

/**
 * What the job adds around the retrieval classes: an embedding cache (identity when there is none)
 * and the preparation of LightRetriever's token-embedding cache on an embedded encoder.
 */
public interface RetrievalHooks {
  RetrievalHooks NONE = new RetrievalHooks() {};

  /**
   * Makes sure the encoder can answer LightRetriever queries for {@code model} at {@code
   * dimensions} (0: the model's width; a narrower one has a token table of its own).
   */
  default void prepareLightCache(String model, int dimensions, EncodeProgress progress) {}

  default DenseRetrieval dense(DenseRetrieval retrieval) {
    return retrieval;
  }

  default SparseRetrieval sparse(SparseRetrieval retrieval) {
    return retrieval;
  }

  default MultiVectorRetrieval multiVector(MultiVectorRetrieval retrieval) {
    return retrieval;
  }

  default CandidateSetBuilder candidates(CandidateSetBuilder builder) {
    return builder;
  }
}
