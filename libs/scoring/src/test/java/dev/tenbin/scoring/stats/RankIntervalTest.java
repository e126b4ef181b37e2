package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RankIntervalTest {
  /**
   * Three rows over 40 draws: a leads in 38 and is second in 2; b is second in 38 and first in 2; c
   * is always third. 2.5% of 40 draws is 1 draw, 97.5% is 39.
   */
  private static double[][] fortyDraws() {
    double[][] scores = new double[3][40];
    for (int draw = 0; draw < 40; draw++) {
      boolean swapped = draw < 2;
      scores[0][draw] = swapped ? 50 : 60;
      scores[1][draw] = swapped ? 60 : 50;
      scores[2][draw] = 10;
    }
    return scores;
  }

  @Test
  void theBoundsAreTheRanksThatTwoAndAHalfAndNinetySevenAndAHalfPercentOfDrawsReach() {
    RankInterval[] intervals = RankInterval.of(fortyDraws(), 0.95);

    // a: first in 38 of 40 draws, fewer than the 39 the upper bound needs, so 1–2
    assertThat(intervals[0]).isEqualTo(new RankInterval(1, 2));
    // b: first in 2 draws (at least 1 needed for best 1), second or better in all 40
    assertThat(intervals[1]).isEqualTo(new RankInterval(1, 2));
    assertThat(intervals[2]).isEqualTo(new RankInterval(3, 3));
    assertThat(intervals[0].includesFirst()).isTrue();
    assertThat(intervals[2].includesFirst()).isFalse();
    assertThat(intervals[0].label()).isEqualTo("1–2");
  }

  @Test
  void aNarrowerLevelLeavesOutTheRareDraws() {
    // 80%: 10% of 40 draws is 4, so b's 2 first places no longer reach rank 1, and a's 38 first
    // places exceed the 36 (90%) the upper bound needs
    RankInterval[] intervals = RankInterval.of(fortyDraws(), 0.80);

    assertThat(intervals[0]).isEqualTo(new RankInterval(1, 1));
    assertThat(intervals[1]).isEqualTo(new RankInterval(2, 2));
  }

  @Test
  void rowsTiedInADrawShareTheBestRank() {
    // every draw ties a and b at the top (within the tolerance) and puts c below them: "113"
    double[][] scores = {{70, 70, 70}, {70 + 1e-12, 70, 70 - 1e-12}, {20, 20, 20}};

    RankInterval[] intervals = RankInterval.of(scores, 0.95);

    assertThat(intervals)
        .containsExactly(new RankInterval(1, 1), new RankInterval(1, 1), new RankInterval(3, 3));
  }

  @Test
  void aRowFirstInExactlyTwoAndAHalfPercentOfTheDrawsIncludesRankOne() {
    // 1,000 draws: b is first in `firsts` of them; 25 is 2.5% exactly (no rounding up to 26)
    for (int firsts : new int[] {24, 25}) {
      double[][] scores = new double[2][1_000];
      for (int draw = 0; draw < 1_000; draw++) {
        scores[0][draw] = draw < firsts ? 40 : 60;
        scores[1][draw] = 50;
      }
      RankInterval b = RankInterval.of(scores, 0.95)[1];
      assertThat(b.includesFirst())
          .as("first in %d of 1,000 draws", firsts)
          .isEqualTo(firsts == 25);
      assertThat(b.worst()).isEqualTo(2);
    }
  }

  @Test
  void withoutDrawsThereIsNoInterval() {
    assertThat(RankInterval.of(new double[][] {{}, {}}, 0.95)).containsExactly(null, null);
    assertThat(RankInterval.of(new double[0][], 0.95)).isEmpty();
  }

  @Test
  void aBoundBelowOneOrABestAfterTheWorstIsRefused() {
    assertThatThrownBy(() -> new RankInterval(0, 2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RankInterval(3, 2)).isInstanceOf(IllegalArgumentException.class);
  }
}
