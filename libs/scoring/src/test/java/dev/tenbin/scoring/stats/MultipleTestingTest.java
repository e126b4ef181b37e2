package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.scoring.stats.MultipleTesting.Correction;
import org.junit.jupiter.api.Test;

class MultipleTestingTest {
  private static final double[] P = {0.01, 0.04, 0.03, 0.005};

  @Test
  void holmMultipliesTheSortedValuesByTheTestsLeftAndKeepsThemMonotone() {
    // sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max
    // 0.02, 0.03, 0.06, 0.06 (R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm"))
    assertThat(MultipleTesting.adjust(P, Correction.HOLM))
        .containsExactly(new double[] {0.03, 0.06, 0.06, 0.02}, within(1e-15));
  }

  @Test
  void benjaminiHochbergScalesByRankAndTakesTheRunningMinimumFromTheTop() {
    // sorted times 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02, 0.04, 0.04 -> running min from the top
    // 0.02, 0.02, 0.04, 0.04 (R: p.adjust(..., "BH"))
    assertThat(MultipleTesting.adjust(P, Correction.BENJAMINI_HOCHBERG))
        .containsExactly(new double[] {0.02, 0.04, 0.04, 0.02}, within(1e-15));
  }

  @Test
  void adjustedValuesStopAtOneAndUntestedOnesStayOutOfTheFamily() {
    double[] p = {0.5, Double.NaN, 0.4};
    // a family of 2: Holm 0.4 * 2 = 0.8, then max(0.8, 0.5) = 0.8
    assertThat(MultipleTesting.adjust(p, Correction.HOLM))
        .containsExactly(new double[] {0.8, Double.NaN, 0.8}, within(1e-15));
    assertThat(MultipleTesting.adjust(new double[] {0.6, 0.7}, Correction.HOLM))
        .containsExactly(1.0, 1.0);
    assertThat(MultipleTesting.adjust(p, Correction.NONE)).containsExactly(p);
  }

  @Test
  void correctionsParseFromTheirOptionNames() {
    assertThat(Correction.parse("holm")).isEqualTo(Correction.HOLM);
    assertThat(Correction.parse(" BH")).isEqualTo(Correction.BENJAMINI_HOCHBERG);
    assertThat(Correction.parse("none")).isEqualTo(Correction.NONE);
    assertThatThrownBy(() -> Correction.parse("bonferroni"))
        .hasMessage("a correction is holm, bh or none, got 'bonferroni'");
  }
}
