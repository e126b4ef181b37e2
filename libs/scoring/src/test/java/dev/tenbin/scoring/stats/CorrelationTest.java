package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CorrelationTest {
  @Test
  void pearsonAndSpearmanMatchHandComputedValues() {
    // dx = dy-permuted: sxy = 8, sxx = syy = 10
    assertThat(Correlation.pearson(new double[] {1, 2, 3, 4, 5}, new double[] {2, 1, 4, 3, 5}))
        .isCloseTo(0.8, within(1e-12));
    assertThat(Correlation.spearman(new double[] {1, 2, 3, 4, 5}, new double[] {2, 1, 4, 3, 5}))
        .isCloseTo(0.8, within(1e-12));
    // monotone but not linear: rho = 1, r = 9 / sqrt(2 * 438 / 9)
    assertThat(Correlation.spearman(new double[] {1, 2, 3}, new double[] {1, 2, 10}))
        .isCloseTo(1.0, within(1e-12));
    assertThat(Correlation.pearson(new double[] {1, 2, 3}, new double[] {1, 2, 10}))
        .isCloseTo(9 / Math.sqrt(2 * 438 / 9.0), within(1e-12));
  }

  @Test
  void tiedValuesShareTheirAverageRank() {
    assertThat(Correlation.averageRanks(new double[] {10, 20, 20, 30}))
        .containsExactly(1, 2.5, 2.5, 4);
    assertThat(Correlation.averageRanks(new double[] {5, 5, 5})).containsExactly(2, 2, 2);
    // ranks x = 1, 2.5, 2.5, 4 against 1..4: sxy = 4.5, sxx = 4.5, syy = 5
    assertThat(Correlation.spearman(new double[] {1, 2, 2, 3}, new double[] {1, 2, 3, 4}))
        .isCloseTo(4.5 / Math.sqrt(4.5 * 5), within(1e-12));
  }

  @Test
  void aConstantSideHasNoCorrelation() {
    assertThat(Correlation.pearson(new double[] {1, 1, 1}, new double[] {1, 2, 3})).isNaN();
  }

  @Test
  void kendallsTauBCountsConcordantPairsAndCorrectsForTies() {
    // 10 pairs: 8 concordant, 1 discordant, 1 tied in y only -> (8 - 1) / sqrt(10 * 9)
    assertThat(Correlation.kendall(new double[] {1, 2, 3, 4, 5}, new double[] {5, 6, 7, 8, 7}))
        .isCloseTo(7 / Math.sqrt(90), org.assertj.core.api.Assertions.within(1e-15));
    assertThat(Correlation.kendall(new double[] {1, 2, 3}, new double[] {3, 2, 1})).isEqualTo(-1.0);
    assertThat(Correlation.kendall(new double[] {1, 2, 3}, new double[] {4, 4, 4})).isNaN();
  }

  @Test
  void aPerfectlyLinearSampleIsExactlyOneNotARoundingPastIt() {
    // sxy / sqrt(sxx * syy) is -1.0000000000000002 here; a correlation never leaves [-1, 1]
    double[] x = {0.01, 0.04, 0.5};
    double[] y = {0.79, 0.76, 0.3};
    assertThat(Correlation.pearson(x, y)).isEqualTo(-1.0);
    double[] up = {-0.79, -0.76, -0.3};
    assertThat(Correlation.pearson(x, up)).isEqualTo(1.0);
    java.util.SplittableRandom random = new java.util.SplittableRandom(13);
    for (int draw = 0; draw < 20_000; draw++) {
      double[] a = {random.nextDouble(), random.nextDouble()};
      double[] b = {0.37 * a[0] + 0.1, 0.37 * a[1] + 0.1};
      assertThat(Correlation.pearson(a, b)).isBetween(-1.0, 1.0);
      assertThat(Correlation.spearman(a, b)).isBetween(-1.0, 1.0);
    }
  }
}
