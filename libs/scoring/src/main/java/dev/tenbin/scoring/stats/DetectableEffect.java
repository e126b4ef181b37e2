package dev.tenbin.scoring.stats;

import org.apache.commons.statistics.distribution.TDistribution;

/**
 * The minimum detectable effect of a paired comparison: the smallest true mean difference a
 * two-sided paired t-test at level α finds with probability {@code power}, given n queries whose
 * differences have standard deviation σ:
 *
 * <pre>MDE = (t<sub>1−α/2, n−1</sub> + t<sub>power, n−1</sub>) · σ / √n</pre>
 *
 * the usual approximation of power analysis for a paired design (the normal formula with Student
 * quantiles; it ignores the far tail, below 0.1% of power at n ≥ 10), as in Webber, Moffat and
 * Zobel, "Statistical power in retrieval experimentation" (CIKM 2008). With α = 0.05 and power 0.8
 * the factor tends to 2.80 as n grows.
 */
public final class DetectableEffect {
  private DetectableEffect() {}

  /**
   * The minimum detectable effect of systems like those of {@code pairs}: {@link #paired} with the
   * root mean square of the pairs' σ and the fewest queries among them. Pairs of identical systems
   * ({@link PairedTest#identical}: σ 0 because nothing differs, not because the systems differ
   * consistently) are left out, as are pairs with fewer than two queries; they would shrink the
   * effect without saying anything about the spread of a real difference.
   *
   * @return the effect on the scale of σ; NaN when no pair is left
   */
  public static double pooled(java.util.List<PairedTest> pairs, double alpha, double power) {
    double squares = 0;
    int pooled = 0;
    int fewest = Integer.MAX_VALUE;
    for (PairedTest pair : pairs) {
      if (pair.identical() || Double.isNaN(pair.sdDifference())) {
        continue;
      }
      squares += pair.sdDifference() * pair.sdDifference();
      pooled++;
      fewest = Math.min(fewest, pair.queries());
    }
    return pooled == 0
        ? paired(Double.NaN, 0, alpha, power)
        : paired(Math.sqrt(squares / pooled), fewest, alpha, power);
  }

  /**
   * The minimum detectable mean difference.
   *
   * @param sdDifference σ of the per-query differences
   * @param queries n
   * @param alpha the test's two-sided level
   * @param power the probability of detecting an effect of that size
   * @return the effect on the scale of σ; NaN when n &lt; 2 or σ is NaN
   */
  public static double paired(double sdDifference, int queries, double alpha, double power) {
    if (!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1)) {
      throw new IllegalArgumentException(
          "alpha and power must be in (0, 1), got " + alpha + " and " + power);
    }
    if (queries < 2 || Double.isNaN(sdDifference)) {
      return Double.NaN;
    }
    TDistribution t = TDistribution.of(queries - 1);
    return (t.inverseSurvivalProbability(alpha / 2) + t.inverseCumulativeProbability(power))
        * sdDifference
        / Math.sqrt(queries);
  }
}
