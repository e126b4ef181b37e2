package dev.tenbin.eval.positions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The profile statistics against values worked out by hand (and, for the correlations, the textbook
 * examples SciPy documents), plus brute-force properties.
 */
class PositionStatisticsTest {
  @Test
  void psiIsOneMinusTheSmallestOverTheLargestBinMean() {
    assertThat(PositionStatistics.psi(new double[] {0.8, 0.4, 0.6})).isEqualTo(0.5);
    assertThat(PositionStatistics.psi(new double[] {0.7, 0.7})).isEqualTo(0.0);
    assertThat(PositionStatistics.psi(new double[] {0.0, 0.0})).isEqualTo(0.0);
    assertThat(PositionStatistics.psi(new double[] {0.0, 0.5})).isEqualTo(1.0);
    assertThat(PositionStatistics.psi(new double[] {0.9})).isNull();
  }

  @Test
  void slopeIsTheLeastSquaresFitOverBinCentres() {
    double[] x = {
      PositionStatistics.binCentre(0, 20),
      PositionStatistics.binCentre(1, 20),
      PositionStatistics.binCentre(3, 20)
    };
    assertThat(x).containsExactly(0.025, 0.075, 0.175);
    double[] y = {1.0 - 2 * x[0], 1.0 - 2 * x[1], 1.0 - 2 * x[2]};
    assertThat(PositionStatistics.slope(x, y)).isCloseTo(-2.0, within(1e-12));
    assertThat(PositionStatistics.slope(new double[] {0.5}, new double[] {1})).isNull();
  }

  @Test
  void correlationsMatchWorkedExamples() {
    double[] x = {1, 2, 3, 4, 5};
    double[] y = {5, 6, 7, 8, 7};
    // scipy.stats.pearsonr -> 0.8320502943378437, spearmanr -> 0.8207826816681233,
    // kendalltau (tau-b) -> 0.7378647873726218
    assertThat(PositionStatistics.pearson(x, y)).isCloseTo(0.8320502943378437, within(1e-12));
    assertThat(PositionStatistics.spearman(x, y)).isCloseTo(0.8207826816681233, within(1e-12));
    assertThat(PositionStatistics.kendall(x, y)).isCloseTo(0.7378647873726218, within(1e-12));
  }

  @Test
  void aConstantProfileHasNoCorrelation() {
    double[] x = {0, 1, 2};
    double[] flat = {0.5, 0.5, 0.5};
    assertThat(PositionStatistics.pearson(x, flat)).isNull();
    assertThat(PositionStatistics.spearman(x, flat)).isNull();
    assertThat(PositionStatistics.kendall(x, flat)).isNull();
    assertThat(PositionStatistics.slope(x, flat)).isEqualTo(0.0);
  }

  @Property
  void aStrictlyDecreasingProfileHasCorrelationsOfMinusOne(
      @ForAll @Size(min = 2, max = 20) java.util.List<@DoubleRange(min = 0, max = 1) Double> raw) {
    double[] y = raw.stream().mapToDouble(Double::doubleValue).distinct().sorted().toArray();
    if (y.length < 2) {
      return;
    }
    double[] x = new double[y.length];
    double[] reversed = new double[y.length];
    for (int i = 0; i < y.length; i++) {
      x[i] = i;
      reversed[i] = y[y.length - 1 - i];
    }
    assertThat(PositionStatistics.spearman(x, reversed)).isCloseTo(-1.0, within(1e-12));
    assertThat(PositionStatistics.kendall(x, reversed)).isCloseTo(-1.0, within(1e-12));
    assertThat(PositionStatistics.pearson(x, reversed)).isNegative();
    assertThat(PositionStatistics.slope(x, reversed)).isNegative();
  }

  @Property
  void correlationsAreSymmetricAndBounded(
      @ForAll @Size(min = 2, max = 20) java.util.List<@DoubleRange(min = 0, max = 1) Double> a,
      @ForAll @Size(min = 2, max = 20) java.util.List<@DoubleRange(min = 0, max = 1) Double> b) {
    int n = Math.min(a.size(), b.size());
    double[] x = a.subList(0, n).stream().mapToDouble(Double::doubleValue).toArray();
    double[] y = b.subList(0, n).stream().mapToDouble(Double::doubleValue).toArray();
    for (Double r :
        new Double[] {
          PositionStatistics.pearson(x, y),
          PositionStatistics.spearman(x, y),
          PositionStatistics.kendall(x, y)
        }) {
      if (r != null) {
        assertThat(r).isBetween(-1.0 - 1e-12, 1.0 + 1e-12);
      }
    }
    assertThat(PositionStatistics.kendall(x, y)).isEqualTo(PositionStatistics.kendall(y, x));
  }
}
