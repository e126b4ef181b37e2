package dev.tenbin.scoring.metrics;

import java.util.Collection;

/**
 * A metric over every order of the documents within the tied groups of a ranking.
 *
 * @param expected the exact mean over all those orders, each equally likely (McSherry and Najork
 *     2008)
 * @param min the value of the worst order (within each group, lowest grade first)
 * @param max the value of the best order (within each group, highest grade first)
 * @param range max - min: how much the metric can move on tie-breaking alone
 * @param bias the deterministic order's value minus the expectation: what the tie-breaking rule
 *     added (positive) or cost (negative)
 */
public record TieAwareValue(double expected, double min, double max, double range, double bias) {
  /** The value of a ranking without relevant documents, or of no queries at all. */
  public static final TieAwareValue ZERO = new TieAwareValue(0, 0, 0, 0, 0);

  /** From the expectation, extremes and the deterministic order's value; range and bias derived. */
  public static TieAwareValue of(double expected, double min, double max, double deterministic) {
    return new TieAwareValue(expected, min, max, max - min, deterministic - expected);
  }

  /** Field-wise arithmetic mean (mean of the mins, of the ranges, ...); ZERO when empty. */
  public static TieAwareValue mean(Collection<TieAwareValue> values) {
    if (values.isEmpty()) {
      return ZERO;
    }
    double expected = 0;
    double min = 0;
    double max = 0;
    double range = 0;
    double bias = 0;
    for (TieAwareValue value : values) {
      expected += value.expected;
      min += value.min;
      max += value.max;
      range += value.range;
      bias += value.bias;
    }
    int n = values.size();
    return new TieAwareValue(expected / n, min / n, max / n, range / n, bias / n);
  }
}
