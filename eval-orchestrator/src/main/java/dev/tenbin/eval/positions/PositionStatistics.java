package dev.tenbin.eval.positions;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The statistics of a bin profile (PosIR): position sensitivity index, least-squares slope and
 * three correlations between position and metric. Inputs are parallel arrays over the bins that
 * qualify (at least {@code min_count} queries), bins in increasing order. Every method returns null
 * where the statistic is undefined: fewer than two bins, or a constant series for a correlation.
 * Sums run in double, in bin order, so results are the same bytes on every run.
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
    requireSameLength(x, y);
    if (x.length < 2) {
      return null;
    }
    double meanX = mean(x);
    double meanY = mean(y);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < x.length; i++) {
      double dx = x[i] - meanX;
      double dy = y[i] - meanY;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    if (sxx == 0 || syy == 0) {
      return null;
    }
    return sxy / Math.sqrt(sxx * syy);
  }

  /** Spearman's rho: Pearson's r of the ranks, tied values sharing their average rank. */
  public static Double spearman(double[] x, double[] y) {
    requireSameLength(x, y);
    return pearson(averageRanks(x), averageRanks(y));
  }

  /**
   * Kendall's tau-b: {@code (concordant - discordant) / sqrt((n0 - tiesX) (n0 - tiesY))} over all
   * pairs; null when either series is constant or with fewer than two points.
   */
  public static Double kendall(double[] x, double[] y) {
    requireSameLength(x, y);
    int n = x.length;
    if (n < 2) {
      return null;
    }
    long concordant = 0;
    long discordant = 0;
    long tiedX = 0;
    long tiedY = 0;
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        int dx = Double.compare(x[i], x[j]);
        int dy = Double.compare(y[i], y[j]);
        if (dx == 0) {
          tiedX++;
        }
        if (dy == 0) {
          tiedY++;
        }
        if (dx != 0 && dy != 0) {
          if (dx == dy) {
            concordant++;
          } else {
            discordant++;
          }
        }
      }
    }
    long pairs = (long) n * (n - 1) / 2;
    double denominator = Math.sqrt((double) (pairs - tiedX) * (pairs - tiedY));
    return denominator == 0 ? null : (concordant - discordant) / denominator;
  }

  /** 1-based ranks; tied values get the mean of the ranks they span. */
  static double[] averageRanks(double[] values) {
    Integer[] order = new Integer[values.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingDouble(i -> values[i]));
    double[] ranks = new double[values.length];
    int start = 0;
    while (start < order.length) {
      int end = start;
      while (end + 1 < order.length && values[order[end + 1]] == values[order[start]]) {
        end++;
      }
      double rank = (start + end) / 2.0 + 1;
      for (int k = start; k <= end; k++) {
        ranks[order[k]] = rank;
      }
      start = end + 1;
    }
    return ranks;
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
