package dev.tenbin.scoring.stats;

import java.util.Arrays;

/**
 * A percentile bootstrap confidence interval.
 *
 * @param low the lower bound (2.5th percentile for a 95% interval)
 * @param high the upper bound (97.5th percentile)
 */
public record Interval(double low, double high) {
  /**
   * The central {@code level} interval of {@code samples} (NaNs ignored), by linear interpolation
   * between order statistics; null when no sample is a number.
   */
  public static Interval percentile(double[] samples, double level) {
    double[] sorted = Arrays.stream(samples).filter(v -> !Double.isNaN(v)).sorted().toArray();
    if (sorted.length == 0) {
      return null;
    }
    double tail = (1 - level) / 2;
    return new Interval(quantile(sorted, tail), quantile(sorted, 1 - tail));
  }

  /** The q-quantile of sorted values (linear interpolation, R type 7). */
  public static double quantile(double[] sorted, double q) {
    double position = q * (sorted.length - 1);
    int below = (int) Math.floor(position);
    int above = Math.min(below + 1, sorted.length - 1);
    return sorted[below] + (position - below) * (sorted[above] - sorted[below]);
  }

  public boolean contains(double value) {
    return value >= low && value <= high;
  }
}
