package dev.tenbin.index.lexical;

import dev.tenbin.core.InvalidInputException;

/** BM25 saturation {@code k1} and length normalisation {@code b}; Anserini's defaults 0.9 / 0.4. */
public record Bm25Parameters(float k1, float b) {
  public static final Bm25Parameters ANSERINI_DEFAULTS = new Bm25Parameters(0.9f, 0.4f);

  public Bm25Parameters {
    if (!Float.isFinite(k1) || k1 < 0) {
      throw new InvalidInputException("spec.bm25.k1", "k1 must be a finite value >= 0, got " + k1);
    }
    if (!Float.isFinite(b) || b < 0 || b > 1) {
      throw new InvalidInputException("spec.bm25.b", "b must be within [0, 1], got " + b);
    }
  }
}
