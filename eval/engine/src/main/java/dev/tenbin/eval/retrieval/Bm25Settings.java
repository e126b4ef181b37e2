package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;

/**
 * BM25's saturation {@code k1} and length normalisation {@code b} for an evaluation, sent to the
 * index service with the collection (its {@code Bm25Parameters}). The defaults are Anserini's 0.9 /
 * 0.4, which every BM25 cell used before the parameters could be set: a cell with the defaults
 * keeps its fingerprint and its system name {@code bm25}; other values make the system {@code
 * bm25:k1=K1,b=B} ({@link #describe()}), a row of its own.
 *
 * @param k1 finite, at least 0
 * @param b within [0, 1]
 */
public record Bm25Settings(float k1, float b) {
  public static final Bm25Settings DEFAULTS = new Bm25Settings(0.9f, 0.4f);

  public Bm25Settings {
    if (!Float.isFinite(k1) || k1 < 0) {
      throw new InvalidInputException("k1", "BM25 k1 must be a finite value >= 0, got " + k1);
    }
    if (!Float.isFinite(b) || b < 0 || b > 1) {
      throw new InvalidInputException("b", "BM25 b must be within [0, 1], got " + b);
    }
  }

  /** Whether these are the defaults 0.9 / 0.4. */
  public boolean isDefault() {
    return equals(DEFAULTS);
  }

  /**
   * "k1=1.2,b=0.75": the model part of a non-default BM25 system, and what {@link #parse} reads.
   */
  public String describe() {
    return "k1=" + k1 + ",b=" + b;
  }

  /**
   * Reads {@link #describe()}'s form back; "" (the model of a default BM25 work item) is the
   * defaults.
   */
  public static Bm25Settings parse(String text) {
    if (text.isEmpty()) {
      return DEFAULTS;
    }
    float k1 = DEFAULTS.k1;
    float b = DEFAULTS.b;
    for (String part : text.split(",")) {
      String[] pair = part.split("=", 2);
      if (pair.length == 2 && pair[0].equals("k1")) {
        k1 = Float.parseFloat(pair[1]);
      } else if (pair.length == 2 && pair[0].equals("b")) {
        b = Float.parseFloat(pair[1]);
      } else {
        throw new IllegalArgumentException("not BM25 parameters: " + text);
      }
    }
    return new Bm25Settings(k1, b);
  }
}
