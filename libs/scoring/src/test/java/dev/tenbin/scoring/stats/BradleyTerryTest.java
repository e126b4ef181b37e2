package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BradleyTerryTest {
  @Test
  void twoRowsGetTheLogOfTheirWinRatioSplitAroundZero() {
    // closed form: γ1 / γ2 = w12 / w21, so θ1 − θ2 = ln(7 / 3) and θ1 = −θ2
    double[] theta = BradleyTerry.fit(new double[][] {{0, 7}, {3, 0}});

    assertThat(theta[0]).isCloseTo(Math.log(7.0 / 3) / 2, within(1e-8));
    assertThat(theta[1]).isCloseTo(-Math.log(7.0 / 3) / 2, within(1e-8));
  }

  @Test
  void winsInTheModelsOwnProportionsGiveBackItsStrengths() {
    // γ = (4, 2, 1) and 12 comparisons per pair, won in the proportions γi / (γi + γj): those wins
    // satisfy the likelihood equations, so the fit is γ itself (θ = ln γ − mean ln γ)
    double[][] wins = {{0, 8, 9.6}, {4, 0, 8}, {2.4, 4, 0}};

    double[] theta = BradleyTerry.fit(wins);

    double mean = (Math.log(4) + Math.log(2) + Math.log(1)) / 3;
    assertThat(theta[0]).isCloseTo(Math.log(4) - mean, within(1e-7));
    assertThat(theta[1]).isCloseTo(Math.log(2) - mean, within(1e-7));
    assertThat(theta[2]).isCloseTo(Math.log(1) - mean, within(1e-7));
  }

  @Test
  void aQueryWinCountsOneAndATieHalfForEachRow() {
    double[][] values = {{1.0, 0.5, 0.0, 0.7}, {0.5, 0.5, 1.0, 0.2}};

    double[][] wins = BradleyTerry.wins(values);

    // a wins q0 and q3, ties q1, loses q2
    assertThat(wins[0][1]).isEqualTo(2.5);
    assertThat(wins[1][0]).isEqualTo(1.5);
    assertThat(wins[0][0]).isZero();
  }

  @Test
  void aRowThatNeverLosesHasNoFiniteStrength() {
    // a beats b and c every time: its likelihood grows without bound
    assertThat(BradleyTerry.fit(new double[][] {{0, 5, 5}, {0, 0, 3}, {0, 2, 0}})).isNull();
    // b and c never meet a and d: two groups without a comparison across
    assertThat(
            BradleyTerry.fit(
                new double[][] {{0, 0, 0, 1}, {0, 0, 1, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}}))
        .isNull();
  }

  @Test
  void aSingleRowHasStrengthZero() {
    assertThat(BradleyTerry.fit(new double[][] {{0}})).containsExactly(0.0);
  }
}
