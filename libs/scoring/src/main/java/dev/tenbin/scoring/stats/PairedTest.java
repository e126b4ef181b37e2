package dev.tenbin.scoring.stats;

import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.TDistribution;

/**
 * Two systems compared on the same queries: a two-sided paired randomization (sign-flip
 * permutation) test and a two-sided paired t-test on the per-query differences {@code d = a - b},
 * with the t interval of the mean difference.
 *
 * <p>Randomization test: under the null hypothesis each difference is as likely to have either
 * sign, so the p-value is the share of the 2<sup>n</sup> sign assignments whose |Σ d| reaches the
 * observed |Σ d| (a relative tolerance of 1e-10 of Σ|d| absorbs rounding). Up to {@value
 * #EXACT_UP_TO} queries every assignment is enumerated (exact p); beyond, {@code permutations}
 * assignments are drawn from a {@link SplittableRandom} of the given seed (64 signs from each
 * {@code nextLong}, low bit first) and p = (1 + hits) / (1 + permutations), which never reports 0
 * for a sampled test. All differences zero gives p = 1.
 *
 * <p>t-test: t = mean(d) / (sd(d) / √n) with n − 1 degrees of freedom (sd with n − 1 in the
 * denominator); p = 2 · P(T ≥ |t|). When every difference is the same value sd is 0: p is 1 if that
 * value is 0, else 0, and the interval is that value. Fewer than two queries: p and the interval
 * are NaN.
 *
 * @param queries n, the number of paired values
 * @param meanDifference mean(a − b)
 * @param sdDifference sd(a − b), n − 1 in the denominator (NaN for n &lt; 2)
 * @param differenceInterval the t interval of the mean difference at {@code level}
 * @param t the t statistic (±∞ when sd is 0 and the mean is not; NaN for 0/0)
 * @param tTestP two-sided p of the paired t-test
 * @param randomizationP two-sided p of the paired randomization test
 * @param exact whether the randomization p enumerated every sign assignment
 */
public record PairedTest(
    int queries,
    double meanDifference,
    double sdDifference,
    Interval differenceInterval,
    double t,
    double tTestP,
    double randomizationP,
    boolean exact) {

  /** Up to this many queries the randomization test enumerates all sign assignments. */
  public static final int EXACT_UP_TO = 20;

  /**
   * The smallest p a sampled randomization test of {@code permutations} draws reports, 1 / (n + 1):
   * no draw reached the observed sum, so the true p is at most this (it is a bound, not a value).
   */
  public static double resolutionLimit(int permutations) {
    return 1.0 / (1.0 + permutations);
  }

  /**
   * Whether the randomization p is the sampled test's {@link #resolutionLimit}: no draw of the
   * {@code permutations} reached the observed sum. An exact p never is.
   */
  public boolean randomizationAtLimit(int permutations) {
    return !exact && randomizationP <= resolutionLimit(permutations);
  }

  /** Whether every per-query difference is 0: the two systems ranked every query alike. */
  public boolean identical() {
    return queries > 0 && meanDifference == 0 && (queries == 1 || sdDifference == 0);
  }

  /**
   * Compares {@code a} with {@code b}, query by query.
   *
   * @param a the first system's per-query values
   * @param b the second system's, in the same query order
   * @param level the interval's confidence level, e.g. 0.95
   * @param permutations sign assignments drawn when there are more than {@value #EXACT_UP_TO}
   *     queries
   * @param seed the seed of those draws
   */
  public static PairedTest of(double[] a, double[] b, double level, int permutations, long seed) {
    if (a.length != b.length) {
      throw new IllegalArgumentException(
          "paired values differ in length: " + a.length + " and " + b.length);
    }
    if (!(level > 0 && level < 1)) {
      throw new IllegalArgumentException("level must be in (0, 1), got " + level);
    }
    if (permutations < 1) {
      throw new IllegalArgumentException("permutations must be 1 or more, got " + permutations);
    }
    int n = a.length;
    double[] d = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      d[i] = a[i] - b[i];
      sum += d[i];
    }
    double mean = n == 0 ? Double.NaN : sum / n;
    double squares = 0;
    for (double v : d) {
      squares += (v - mean) * (v - mean);
    }
    double sd = n < 2 ? Double.NaN : Math.sqrt(squares / (n - 1));
    double t;
    double tP;
    Interval interval;
    if (n < 2) {
      t = Double.NaN;
      tP = Double.NaN;
      interval = new Interval(Double.NaN, Double.NaN);
    } else if (sd == 0) {
      t = mean == 0 ? Double.NaN : Math.copySign(Double.POSITIVE_INFINITY, mean);
      tP = mean == 0 ? 1 : 0;
      interval = new Interval(mean, mean);
    } else {
      double se = sd / Math.sqrt(n);
      TDistribution distribution = TDistribution.of(n - 1);
      t = mean / se;
      tP = Math.min(1, 2 * distribution.survivalProbability(Math.abs(t)));
      double half = distribution.inverseSurvivalProbability((1 - level) / 2) * se;
      interval = new Interval(mean - half, mean + half);
    }
    boolean exact = n <= EXACT_UP_TO;
    double randomizationP =
        n == 0
            ? Double.NaN
            : exact ? exactRandomization(d) : sampledRandomization(d, permutations, seed);
    return new PairedTest(n, mean, sd, interval, t, tP, randomizationP, exact);
  }

  private static double tolerance(double[] d) {
    double absolute = 0;
    for (double v : d) {
      absolute += Math.abs(v);
    }
    return 1e-10 * absolute;
  }

  private static double exactRandomization(double[] d) {
    int n = d.length;
    double observed = Math.abs(sum(d));
    double threshold = observed - tolerance(d);
    long hits = 0;
    long assignments = 1L << n;
    for (long signs = 0; signs < assignments; signs++) {
      double s = 0;
      for (int i = 0; i < n; i++) {
        s += (signs >>> i & 1) == 0 ? d[i] : -d[i];
      }
      if (Math.abs(s) >= threshold) {
        hits++;
      }
    }
    return (double) hits / assignments;
  }

  private static double sampledRandomization(double[] d, int permutations, long seed) {
    double threshold = Math.abs(sum(d)) - tolerance(d);
    SplittableRandom random = new SplittableRandom(seed);
    long hits = 0;
    for (int p = 0; p < permutations; p++) {
      double s = 0;
      long signs = 0;
      int left = 0;
      for (double v : d) {
        if (left == 0) {
          signs = random.nextLong();
          left = Long.SIZE;
        }
        s += (signs & 1) == 0 ? v : -v;
        signs >>>= 1;
        left--;
      }
      if (Math.abs(s) >= threshold) {
        hits++;
      }
    }
    return (1.0 + hits) / (1.0 + permutations);
  }

  private static double sum(double[] values) {
    double s = 0;
    for (double v : values) {
      s += v;
    }
    return s;
  }
}
