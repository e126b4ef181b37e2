package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;

/** A retriever named on the command line: {@code bm25}, {@code dense:MODEL}, {@code light:MODEL}. */
public record RetrieverSpec(Family family, String model) {
  public enum Family {
    BM25,
    DENSE,
    LIGHT,
    SPARSE,
    SPARSE_BM25,
    MULTIVECTOR
  }

  public static RetrieverSpec parse(String text) {
    String value = text == null ? "" : text.trim();
    if (value.equals("bm25")) {
      return new RetrieverSpec(Family.BM25, "");
    }
    int colon = value.indexOf(':');
    if (colon > 0 && colon < value.length() - 1) {
      String model = value.substring(colon + 1);
      switch (value.substring(0, colon)) {
        case "dense":
          return new RetrieverSpec(Family.DENSE, model);
        case "light":
          return new RetrieverSpec(Family.LIGHT, model);
        case "sparse":
          return new RetrieverSpec(Family.SPARSE, model);
        case "sparse-bm25":
          return new RetrieverSpec(Family.SPARSE_BM25, model);
        case "multivector":
          return new RetrieverSpec(Family.MULTIVECTOR, model);
        default:
          break;
      }
    }
    throw new InvalidInputException(
        "--retriever",
        "unknown retriever '" + text
            + "': expected bm25, dense:MODEL, light:MODEL, sparse:MODEL, sparse-bm25:MODEL or multivector:MODEL");
  }

  /** The name reported in results, e.g. "dense:bge-small-en-v1.5". */
  public String name() {
    return family == Family.BM25
        ? "bm25"
        : family.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + ":" + model;
  }
}
