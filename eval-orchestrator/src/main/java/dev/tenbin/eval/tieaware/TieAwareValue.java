package dev.tenbin.eval.tieaware;

/**
 * A metric over every order of the tied groups of a ranking.
 *
 * @param expected the exact mean over all orders within tied groups (McSherry and Najork 2008)
 * @param min the worst order (non-relevant first within each group)
 * @param max the best order (highest grade first within each group)
 * @param range max - min
 * @param bias the deterministic order's value minus the expectation
 */
public record TieAwareValue(double expected, double min, double max, double range, double bias) {
  public static final TieAwareValue ZERO = new TieAwareValue(0, 0, 0, 0, 0);

  public static TieAwareValue of(double expected, double min, double max, double deterministic) {
    return new TieAwareValue(expected, min, max, max - min, deterministic - expected);
  }
}
