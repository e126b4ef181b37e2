package dev.tenbin.scoring.stats;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/** Pearson, Spearman and Kendall correlation of paired samples, each within [−1, 1]. */
public final class Correlation {
  private Correlation() {}

  /**
   * Pearson's r, within [−1, 1] (rounding can carry {@code sxy / sqrt(sxx syy)} a unit in the last
   * place past ±1; the value is clamped); NaN when fewer than two pairs or either side is constant.
   */
  public static double pearson(double[] x, double[] y) {
    requireSameLength(x, y);
    int n = x.length;
    if (n < 2) {
      return Double.NaN;
    }
    double meanX = Arrays.stream(x).average().orElseThrow();
    double meanY = Arrays.stream(y).average().orElseThrow();
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < n; i++) {
      double dx = x[i] - meanX;
      double dy = y[i] - meanY;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    if (sxx == 0 || syy == 0) {
      return Double.NaN;
    }
    return clamp(sxy / Math.sqrt(sxx * syy));
  }

  /** A correlation rounded past ±1 brought back to it. */
  private static double clamp(double r) {
    return Math.max(-1, Math.min(1, r));
  }

  /** Spearman's rho: Pearson's r of the ranks, tied values sharing their average rank. */
  public static double spearman(double[] x, double[] y) {
    requireSameLength(x, y);
    return pearson(averageRanks(x), averageRanks(y));
  }

  /**
   * Kendall's tau-b: {@code (concordant - discordant) / sqrt((n0 - tiesX) (n0 - tiesY))} over all
   * pairs; NaN when fewer than two pairs or either side is constant.
   */
  public static double kendall(double[] x, double[] y) {
    requireSameLength(x, y);
    int n = x.length;
    if (n < 2) {
      return Double.NaN;
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
    return denominator == 0 ? Double.NaN : clamp((concordant - discordant) / denominator);
  }

  /** 1-based ranks in ascending order of value; tied values get the mean of the ranks they span. */
  public static double[] averageRanks(double[] values) {
    Integer[] order =
        IntStream.range(0, values.length)
            .boxed()
            .sorted(Comparator.comparingDouble(i -> values[i]))
            .toArray(Integer[]::new);
    double[] ranks = new double[values.length];
    int start = 0;
    while (start < order.length) {
      int end = start;
      while (end + 1 < order.length && values[order[end + 1]] == values[order[start]]) {
        end++;
      }
      double average = (start + end) / 2.0 + 1;
      for (int k = start; k <= end; k++) {
        ranks[order[k]] = average;
      }
      start = end + 1;
    }
    return ranks;
  }

  private static void requireSameLength(double[] x, double[] y) {
    if (x.length != y.length) {
      throw new IllegalArgumentException(
          "paired samples differ in length: " + x.length + " vs " + y.length);
    }
  }
}
