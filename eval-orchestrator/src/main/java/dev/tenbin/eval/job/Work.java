package dev.tenbin.eval.job;

import java.util.List;

/**
 * A unit of work of a job: everything computed from one encode and one index of one task. A
 * dense model's variants share an encode and an index; LightRetriever's dense, sparse and hybrid
 * cells share their two rankings; a reranker's two modes share one pass. A work item is done when
 * every one of its cells is stored; a resumed job re-runs an unfinished item and stores only the
 * cells still missing.
 *
 * @param kind what runs
 * @param task the task
 * @param model the model (retriever or reranker id); "" for BM25 and candidate sets
 * @param cells the cells it produces (for CANDIDATES: none, it produces {@link #artifacts})
 * @param artifacts fingerprints of the candidate sets it writes (CANDIDATES), or the one it reads (RERANK)
 * @param candidateKind "hybrid" or "bm25" for RERANK; "" otherwise
 */
public record Work(Kind kind, JobTask task, String model, List<PlannedCell> cells, List<String> artifacts, String candidateKind) {
  /** The kinds of work. */
  public enum Kind {
    BM25,
    DENSE,
    LIGHT,
    SPARSE,
    SPARSE_BM25,
    MULTIVECTOR,
    CANDIDATES,
    RERANK
  }

  /** E.g. "dense:bge-small-en-v1.5 on local-beir/xquad-en". */
  public String label() {
    String what =
        switch (kind) {
          case BM25 -> "bm25";
          case CANDIDATES -> "candidate sets";
          case RERANK -> "rerank " + model + " over " + candidateKind;
          default -> kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + ":" + model;
        };
    return what + " on " + task.benchmark() + "/" + task.task();
  }
}
