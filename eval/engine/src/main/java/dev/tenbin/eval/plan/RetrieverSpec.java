package dev.tenbin.eval.plan;

/**
 * A retriever named on the command line or in a job spec: {@code bm25}, {@code dense:MODEL}, ...
 * (every family is registered in {@code family.Families}, which parses them).
 *
 * @param family the retrieval family
 * @param model the model id; "" for a family without one (BM25)
 */
public record RetrieverSpec(RetrievalFamily family, String model) {
  /** The name reported in results, e.g. "dense:bge-small-en-v1.5". */
  public String name() {
    return family.system(model);
  }
}
