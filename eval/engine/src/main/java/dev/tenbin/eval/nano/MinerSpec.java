package dev.tenbin.eval.nano;

import dev.tenbin.core.InvalidInputException;

/**
 * A hard-negative miner named on the command line: {@code bm25} or {@code dense:MODEL}.
 *
 * @param kind lexical or dense retrieval
 * @param model the dense model id; "" for BM25
 */
public record MinerSpec(Kind kind, String model) {
  /** How a miner retrieves. */
  public enum Kind {
    BM25,
    DENSE
  }

  /** The default dense miner's model. */
  public static final String DEFAULT_DENSE_MODEL = "bge-small-en-v1.5";

  public static final MinerSpec BM25 = new MinerSpec(Kind.BM25, "");

  /** Parses {@code bm25} or {@code dense:MODEL}; anything else fails naming {@code --miners}. */
  public static MinerSpec parse(String text) {
    String value = text == null ? "" : text.trim();
    if (value.equals("bm25")) {
      return BM25;
    }
    if (value.startsWith("dense:") && value.length() > "dense:".length()) {
      return new MinerSpec(Kind.DENSE, value.substring("dense:".length()));
    }
    throw new InvalidInputException(
        "--miners", "unknown miner '" + text + "': expected bm25 or dense:MODEL");
  }

  /** The name recorded in {@code nano.json}, e.g. "dense:bge-small-en-v1.5". */
  public String name() {
    return kind == Kind.BM25 ? "bm25" : "dense:" + model;
  }
}
