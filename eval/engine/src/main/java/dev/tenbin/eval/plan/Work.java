package dev.tenbin.eval.plan;

import java.util.List;

/**
 * A unit of work of a job: everything computed from one encode and one index of one task. A dense
 * model's variants share an encode and an index; LightRetriever's dense, sparse and hybrid cells
 * share their two rankings; a reranker's two modes share one pass. A work item is done when every
 * one of its cells is stored; a resumed job re-runs an unfinished item and stores only the cells
 * still missing.
 *
 * @param kind what runs it: a retrieval family, the candidate sets or a reranker (see {@link
 *     dev.tenbin.eval.family.Families})
 * @param task the task
 * @param model the model (retriever or reranker id); "" for BM25 and candidate sets
 * @param cells the cells it produces (candidate sets: none, they produce {@link #artifacts})
 * @param artifacts fingerprints of the candidate sets it writes, of the one a reranker reads, or of
 *     the component cells a hybrid fuses (in its components' order)
 * @param candidateKind "hybrid" or "bm25" for a reranker; "" otherwise
 */
public record Work(
    WorkFamily kind,
    JobTask task,
    String model,
    List<PlannedCell> cells,
    List<String> artifacts,
    String candidateKind) {
  /** E.g. "dense:bge-small-en-v1.5 on local-beir/xquad-en". */
  public String label() {
    return kind.label(this) + " on " + task.benchmark() + "/" + task.task();
  }
}
