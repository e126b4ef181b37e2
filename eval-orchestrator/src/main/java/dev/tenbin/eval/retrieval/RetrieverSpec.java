package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;

/** A retriever named on the command line: {@code bm25}, {@code dense:MODEL}, {@code light:MODEL}. */
public record RetrieverSpec(Family family, String model) {
  public enum Family {
    BM25,
    DENSE,
    LIGHT
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
        default:
          break;
      }
    }
    throw new InvalidInputException(
        "--retriever",
        "unknown retriever '" + text + "': expected bm25, dense:MODEL or light:MODEL");
  }

  /** The name reported in results, e.g. "dense:bge-small-en-v1.5". */
  public String name() {
    return family == Family.BM25 ? "bm25" : family.name().toLowerCase(java.util.Locale.ROOT) + ":" + model;
  }
}
