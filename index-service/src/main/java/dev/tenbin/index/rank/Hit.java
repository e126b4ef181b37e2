package dev.tenbin.index.rank;

import java.util.Comparator;

/**
 * A ranked document: its id and FP32 score, the one (id, score) type of the index. Every ranking
 * the index returns is in {@link #RANKING} order, the tie policy of the README.
 */
public record Hit(String docId, float score) {
  /**
   * Best first: score descending, then doc id ascending ({@link String#compareTo}). Scores compare
   * numerically, so 0 and −0 tie and are broken by id; a NaN ranks above every number.
   */
  public static final Comparator<Hit> RANKING =
      Comparator.comparing(
              Hit::score, (a, b) -> a.floatValue() == b.floatValue() ? 0 : Float.compare(b, a))
          .thenComparing(Hit::docId);
}
