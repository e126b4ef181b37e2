package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.family.RetrievalFamily;

/**
 * A retriever named on the command line or in a job spec: {@code bm25}, {@code dense:MODEL}, ...
 * (every family is in {@link Families}).
 *
 * @param family the retrieval family
 * @param model the model id; "" for a family without one (BM25)
 */
public record RetrieverSpec(RetrievalFamily family, String model) {
  /** Parses a retriever name; see {@link Families#parse}. */
  public static RetrieverSpec parse(String text) {
    return Families.parse(text);
  }

  /** The name reported in results, e.g. "dense:bge-small-en-v1.5". */
  public String name() {
    return family.system(model);
  }
}
