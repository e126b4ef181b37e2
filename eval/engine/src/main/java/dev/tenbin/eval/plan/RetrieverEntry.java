package dev.tenbin.eval.plan;

import dev.tenbin.eval.retrieval.Bm25Settings;
import java.util.List;

/**
 * One retriever of a job: the parsed {@code FAMILY:MODEL}, the efficiency variants it runs and, for
 * BM25, its parameters.
 *
 * @param retriever the family and model
 * @param variants the variant names the spec lists (checked by the family)
 * @param bm25 BM25's k1 and b; the defaults for other families
 */
public record RetrieverEntry(RetrieverSpec retriever, List<String> variants, Bm25Settings bm25) {
  public RetrieverEntry(RetrieverSpec retriever, List<String> variants) {
    this(retriever, variants, Bm25Settings.DEFAULTS);
  }
}
