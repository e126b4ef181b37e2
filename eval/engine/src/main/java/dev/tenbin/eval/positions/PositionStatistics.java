package dev.tenbin.eval.positions;

import dev.tenbin.scoring.stats.Correlation;

/**
 * The statistics of a bin profile (PosIR): position sensitivity index, least-squares slope and
 * three correlations between position and metric. Inputs are parallel arrays over the bins that
 * qualify (at least {@code min_count} queries), bins in increasing order. The correlations are
 * {@link Correlation}'s, with null where it gives NaN. Every method returns null where the
 * statistic is undefined: fewer than two bins, or a constant series for a correlation. Sums run in
 * double, in bin order, so results are the same bytes on every run.
 */
public final class PositionStatistics {
  private PositionStatistics() {}

  /**
   * {@code 1 - min/max} over the bin means; 0 when every mean is 0 (no variation), null with fewer
   * than two bins.
   */
  public static Double psi(double[] means) {
    if (means.length < 2) {
      return null;
    }
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double mean : means) {
      min = Math.min(min, mean);
      max = Math.max(max, mean);
    }
    return max == 0.0 ? 0.0 : 1.0 - min / max;
  }

  /** The centre of bin {@code bin} of {@code bins} equal-width bins on [0, 1]. */
  public static double binCentre(int bin, int bins) {
    return (bin + 0.5) / bins;
  }

  /** Least-squares slope of {@code y} over {@code x}; null with fewer than two distinct x. */
  public static Double slope(double[] x, double[] y) {
    requireSameLength(x, y);
    if (x.length < 2) {
      return null;
    }
    double meanX = mean(x);
    double meanY = mean(y);
    double sxy = 0;
    double sxx = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - meanX) * (y[i] - meanY);
      sxx += (x[i] - meanX) * (x[i] - meanX);
    }
    return sxx == 0 ? null : sxy / sxx;
  }

  /** Pearson's r; null with fewer than two points or when either series is constant. */
  public static Double pearson(double[] x, double[] y) {
    return defined(Correlation.pearson(x, y));
  }

  /** Spearman's rho: Pearson's r of the ranks, tied values sharing their average rank. */
  public static Double spearman(double[] x, double[] y) {
    return defined(Correlation.spearman(x, y));
  }

  /** Kendall's tau-b; null when either series is constant or with fewer than two points. */
  public static Double kendall(double[] x, double[] y) {
    return defined(Correlation.kendall(x, y));
  }

  private static Double defined(double value) {
    return Double.isNaN(value) ? null : value;
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double value : values) {
      sum += value;
    }
    return sum / values.length;
  }

  private static void requireSameLength(double[] x, double[] y) {
    if (x.length != y.length) {
      throw new IllegalArgumentException(
          "series of different lengths: " + x.length + " and " + y.length);
    }
  }
}
