package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PairwisePreferenceTest {
  private static CellRecord scored(String task, String system, double... perQuery) {
    double mean = Arrays.stream(perQuery).average().orElseThrow();
    return cell("bench", task, system, "base", mean).queryNdcg10(perQuery).build();
  }

  private static RowKey row(Leaderboard board, String system) {
    return board.ranked().stream()
        .map(LeaderboardRow::key)
        .filter(key -> key.system().name().equals(system))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void twoRowsGetTheClosedFormStrengthOfTheirQueryWins() {
    // per query: a wins q0, q2 and q5, b wins q3 and q4, q1 ties: a has 3.5 wins, b 2.5, so
    // θa − θb = ln(3.5 / 2.5) and θa = −θb
    List<CellRecord> cells =
        List.of(
            scored("t0", "dense:a", 1.0, 1.0, 1.0, 0.5, 0.0, 1.0),
            scored("t0", "dense:b", 0.5, 1.0, 0.0, 1.0, 1.0, 0.5));
    Leaderboard board = Leaderboard.of(cells, LeaderboardOptions.defaults());
    PairwisePreference preference = board.preference();

    double half = Math.log(3.5 / 2.5) / 2;
    assertThat(preference.strengths().get(row(board, "dense:a"))).isCloseTo(half, within(1e-8));
    assertThat(preference.strengths().get(row(board, "dense:b"))).isCloseTo(-half, within(1e-8));
    assertThat(preference.resampledTasks()).isFalse();
    assertThat(preference.draws()).isEqualTo(LeaderboardOptions.defaults().bootstrapDraws());
    Interval a = preference.intervals().get(row(board, "dense:a"));
    assertThat(a.contains(half)).isTrue();
    assertThat(a.low()).isLessThan(a.high());
    // a draw of only q0, q2 and q5 leaves b without a win: such draws are counted, not fitted
    assertThat(preference.drawsWithoutFit()).isPositive();
    assertThat(Leaderboard.of(cells, LeaderboardOptions.defaults()).preference())
        .isEqualTo(preference);
  }

  @Test
  void aRowAheadOnEveryQueryLeavesNoFiniteFit() {
    List<CellRecord> cells =
        List.of(scored("t0", "dense:a", 1.0, 0.9, 0.8), scored("t0", "dense:b", 0.5, 0.4, 0.3));

    assertThat(Leaderboard.of(cells, LeaderboardOptions.defaults()).preference()).isNull();
  }

  @Test
  void fromFiveTasksTheDrawsResampleTasksAndPoolTheirQueries() {
    List<CellRecord> cells = new ArrayList<>();
    for (int t = 0; t < 5; t++) {
      cells.add(scored("t" + t, "dense:a", 1.0, 0.5, t % 2 == 0 ? 1.0 : 0.0));
      cells.add(scored("t" + t, "dense:b", 0.5, 0.5, 0.5));
    }
    Leaderboard board =
        Leaderboard.of(cells, LeaderboardOptions.defaults().withBootstrapDraws(400));
    PairwisePreference preference = board.preference();

    // a: 3 tasks with 2.5 wins of 3, 2 with 1.5; b the rest: 10.5 against 4.5
    double half = Math.log(10.5 / 4.5) / 2;
    assertThat(preference.resampledTasks()).isTrue();
    assertThat(preference.strengths().get(row(board, "dense:a"))).isCloseTo(half, within(1e-8));
    assertThat(preference.intervals().get(row(board, "dense:a")).contains(half)).isTrue();
    assertThat(preference.draws()).isEqualTo(400);
  }
}
