package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BradleyTerryTest {
  @Test
  void twoRowsGetTheLogOfTheirWinRatioSplitAroundZero() {
    // closed form: γ1 / γ2 = w1 / w2, so θ1 − θ2 = ln(7 / 3) and θ1 = −θ2
    double[] theta = BradleyTerry.fit(new double[] {7, 3}, 10);

    assertThat(theta[0]).isCloseTo(Math.log(7.0 / 3) / 2, within(1e-8));
    assertThat(theta[1]).isCloseTo(-Math.log(7.0 / 3) / 2, within(1e-8));
  }

  @Test
  void winsInTheModelsOwnProportionsGiveBackItsStrengths() {
    // γ = (4, 2, 1) and 12 meetings per pair, won in the proportions γi / (γi + γj): a wins 8 of
    // 12 against b and 9.6 against c, b 8 against c. Those wins satisfy the likelihood equations,
    // so the fit is γ itself (θ = ln γ − mean ln γ)
    double[] theta = BradleyTerry.fit(new double[] {8 + 9.6, 4 + 8, 2.4 + 4}, 12);

    double mean = (Math.log(4) + Math.log(2) + Math.log(1)) / 3;
    assertThat(theta[0]).isCloseTo(Math.log(4) - mean, within(1e-7));
    assertThat(theta[1]).isCloseTo(Math.log(2) - mean, within(1e-7));
    assertThat(theta[2]).isCloseTo(Math.log(1) - mean, within(1e-7));
  }

  @Test
  void aRoundGivesOneForEveryLowerRowAndAHalfForEveryTie() {
    // a beats c and d and ties b; b beats c and d; c beats d
    assertThat(BradleyTerry.roundWins(new double[] {0.7, 0.7, 0.5, 0.1}))
        .containsExactly(2.5, 2.5, 1.0, 0.0);
  }

  @Test
  void aGroupThatWinsEveryMeetingWithTheRestHasNoFiniteStrength() {
    // 5 meetings per pair of 3 rows: a won all 10 of its meetings
    assertThat(BradleyTerry.fit(new double[] {10, 3, 2}, 5)).isNull();
    // a and b won all 20 meetings with c and d (and their 5 with each other)
    assertThat(BradleyTerry.fit(new double[] {14, 11, 3, 2}, 5)).isNull();
    // c won none
    assertThat(BradleyTerry.fit(new double[] {6, 9, 0}, 5)).isNull();
    // a lost one meeting: finite
    assertThat(BradleyTerry.fit(new double[] {9.5, 3.5, 2}, 5)).isNotNull();
  }

  @Test
  void aSingleRowHasStrengthZero() {
    assertThat(BradleyTerry.fit(new double[] {0}, 3)).containsExactly(0.0);
  }
}
