package dev.tenbin.eval.shard;

import dev.tenbin.eval.plan.Work;

/**
 * What a work item is estimated to cost, in texts through a neural model: a model's work item
 * encodes its task's documents and queries once (its variants only search again); BM25 encodes
 * nothing and counts a twentieth of that; the candidate sets count as one encode (the hybrid set's
 * dense model); a reranker scores each evaluated query's top {@value #RERANK_DEPTH} candidates.
 * Only the plan is read, never the store, so every shard process, at any moment of the job,
 * computes the same costs.
 */
@FunctionalInterface
public interface WorkCost {
  /** Candidates a reranker scores per query (the candidate sets' depth). */
  int RERANK_DEPTH = 100;

  /** Weight of work that runs no neural model (BM25 indexing and search). */
  double LEXICAL_WEIGHT = 0.05;

  /** The estimated cost of {@code work}; never negative. */
  double of(Work work);

  /** The estimate described above. */
  static WorkCost estimated() {
    return work -> {
      int documents = work.task().data().corpus().size();
      int queries = work.task().data().evaluatedQueryIds().size();
      return switch (work.kind().name()) {
        case "bm25" -> LEXICAL_WEIGHT * (documents + queries);
        case "rerank" -> (double) queries * RERANK_DEPTH;
        default -> documents + queries;
      };
    };
  }
}
