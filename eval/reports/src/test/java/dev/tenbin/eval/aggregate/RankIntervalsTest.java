package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.stats.RankInterval;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rank intervals and the rows tied for first, against values derived by hand or by enumerating
 * every resample: with n items (queries of one task, or tasks) there are n^n equally likely ordered
 * resamples, so the exact bootstrap distribution of every row's rank is a count over them. The
 * leaderboard's Monte Carlo bootstrap (2,000 draws, seed 42) must give the interval of that exact
 * distribution; each case checks first that no cumulative share of a rank lies within 0.01 of the
 * 2.5% and 97.5% cut-offs, where a finite number of draws could fall on the other side.
 */
class RankIntervalsTest {
  private static final double MARGIN = 0.01;

  private static final List<String> SYSTEMS = List.of("dense:a", "dense:b", "dense:c");

  /** One task; each system's per-query nDCG@10. */
  private static Leaderboard oneTask(double[][] perQuery) {
    List<CellRecord> cells = new ArrayList<>();
    for (int s = 0; s < perQuery.length; s++) {
      double mean = Arrays.stream(perQuery[s]).average().orElseThrow();
      cells.add(cell("bench", "t0", SYSTEMS.get(s), "base", mean).queryNdcg10(perQuery[s]).build());
    }
    return Leaderboard.of(cells, LeaderboardOptions.defaults());
  }

  /** One benchmark, one task per column; each system's score per task (no per-query values). */
  private static Leaderboard tasks(double[][] perTask) {
    List<CellRecord> cells = new ArrayList<>();
    for (int s = 0; s < perTask.length; s++) {
      for (int t = 0; t < perTask[s].length; t++) {
        cells.add(cell("bench", "t" + t, SYSTEMS.get(s), "base", perTask[s][t]).build());
      }
    }
    return Leaderboard.of(cells, LeaderboardOptions.defaults());
  }

  /**
   * The exact bootstrap rank interval of each row: every ordered resample of the n columns of
   * {@code values[row][column]} (n^n of them), each row scored by its mean over the resample and
   * ranked with competition ranking (rows within 1e-9 tie at the better rank).
   */
  private static RankInterval[] exact(double[][] values) {
    int rows = values.length;
    int n = values[0].length;
    long[][] atRank = new long[rows][rows];
    int[] sample = new int[n];
    long total = 0;
    while (true) {
      double[] means = new double[rows];
      for (int r = 0; r < rows; r++) {
        for (int i : sample) {
          means[r] += values[r][i] / n;
        }
      }
      for (int r = 0; r < rows; r++) {
        int better = 0;
        for (int o = 0; o < rows; o++) {
          better += means[o] > means[r] + 1e-9 ? 1 : 0;
        }
        atRank[r][better]++;
      }
      total++;
      int position = 0;
      while (position < n && ++sample[position] == n) {
        sample[position++] = 0;
      }
      if (position == n) {
        break;
      }
    }
    RankInterval[] intervals = new RankInterval[rows];
    for (int r = 0; r < rows; r++) {
      double[] cumulative = new double[rows];
      long reached = 0;
      for (int rank = 0; rank < rows; rank++) {
        reached += atRank[r][rank];
        cumulative[rank] = (double) reached / total;
        assertThat(Math.abs(cumulative[rank] - 0.025)).isGreaterThan(MARGIN);
        assertThat(Math.abs(cumulative[rank] - 0.975)).isGreaterThan(MARGIN);
      }
      intervals[r] =
          new RankInterval(firstReaching(cumulative, 0.025), firstReaching(cumulative, 0.975));
    }
    return intervals;
  }

  private static int firstReaching(double[] cumulative, double share) {
    for (int rank = 0; rank < cumulative.length; rank++) {
      if (cumulative[rank] >= share) {
        return rank + 1;
      }
    }
    throw new AssertionError("no rank reaches " + share);
  }

  private static List<RankInterval> bySystem(Leaderboard board) {
    return SYSTEMS.stream()
        .map(
            system ->
                board.ranked().stream()
                    .filter(row -> row.key().system().name().equals(system))
                    .findFirst()
                    .orElseThrow()
                    .rankInterval())
        .toList();
  }

  private static List<String> tiedForFirst(Leaderboard board) {
    return board.tiedForFirst().stream().map(row -> row.key().system().name()).toList();
  }

  @Test
  void aTopRowAheadOnEveryQueryIsAloneInFirstPlace() {
    // a beats b and b beats c on every query, so every paired resample ranks them a, b, c
    double[][] perQuery = {
      {1.0, 1.0, 1.0, 1.0, 1.0, 0.5},
      {0.5, 0.5, 0.5, 0.5, 0.5, 0.0},
      {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}
    };
    Leaderboard board = oneTask(perQuery);

    assertThat(bySystem(board))
        .containsExactly(new RankInterval(1, 1), new RankInterval(2, 2), new RankInterval(3, 3));
    assertThat(tiedForFirst(board)).containsExactly("dense:a");
    assertThat(bySystem(board)).containsExactly(exact(perQuery));
  }

  @Test
  void twoRowsThatEachWinSomeQueriesAreBothTiedForFirst() {
    // a (mean 0.75) and b (0.667) each win queries the other loses: by enumeration of the 6^6
    // resamples a is first (alone or tied) in 67.8% of them and b in 43.3%; c (0.083) is third in
    // all but 0.14% (where it ties b)
    double[][] perQuery = {
      {1.0, 1.0, 1.0, 0.5, 0.0, 1.0},
      {0.5, 1.0, 0.0, 1.0, 1.0, 0.5},
      {0.0, 0.0, 0.0, 0.0, 0.0, 0.5}
    };
    Leaderboard board = oneTask(perQuery);

    assertThat(bySystem(board)).containsExactly(exact(perQuery));
    assertThat(bySystem(board))
        .containsExactly(new RankInterval(1, 2), new RankInterval(1, 2), new RankInterval(3, 3));
    assertThat(tiedForFirst(board)).containsExactly("dense:a", "dense:b");
  }

  @Test
  void fromFiveTasksTheTasksAreResampledInsteadOfTheQueries() {
    // no cell stored per-query values: a scope of 5 tasks ranks over task draws alone. b (mean
    // 0.67) and a (0.66) trade places task by task; by enumeration of the 5^5 task resamples b is
    // first in 52.1% of them and a in 49.4%; c is last in every one
    double[][] perTask = {
      {0.9, 0.8, 0.3, 0.7, 0.6},
      {0.5, 0.6, 0.9, 0.8, 0.55},
      {0.2, 0.3, 0.1, 0.4, 0.35}
    };
    Leaderboard board = tasks(perTask);

    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.TASKS);
    assertThat(bySystem(board)).containsExactly(exact(perTask));
    assertThat(bySystem(board))
        .containsExactly(new RankInterval(1, 2), new RankInterval(1, 2), new RankInterval(3, 3));
    assertThat(tiedForFirst(board)).containsExactly("dense:b", "dense:a");
  }

  @Test
  void fromFiveTasksARowAheadOnEveryTaskIsAloneInFirstPlace() {
    double[][] perTask = {
      {0.9, 0.8, 0.7, 0.7, 0.6},
      {0.5, 0.6, 0.6, 0.65, 0.55},
      {0.2, 0.3, 0.1, 0.4, 0.35}
    };
    Leaderboard board = tasks(perTask);

    assertThat(bySystem(board))
        .containsExactly(new RankInterval(1, 1), new RankInterval(2, 2), new RankInterval(3, 3));
    assertThat(tiedForFirst(board)).containsExactly("dense:a");
  }

  @Test
  void twoToFourTasksResampleTheQueriesOfEveryTaskWithTheSameDrawForEveryRow() {
    // Derived by hand. Two tasks of 4 queries; the macro score is the mean of the two task means.
    // On t0 a scores 0.5 above b on every query; on t1 b scores 0.5, 1, 1, 0.5 above a. So in a
    // paired draw b − a = (mean of t1's drawn differences − 0.5) / 2 ≥ 0: b is always first, and a
    // ties it exactly when all 4 queries drawn from t1 are q0 or q3, in (2/4)^4 = 6.25% of the
    // draws (≥ 2.5%: a is tied for first). c scores 0 everywhere, a and b above 0: always third.
    List<CellRecord> cells = new ArrayList<>();
    double[][][] values = {
      {{1.0, 1.0, 1.0, 0.5}, {0.5, 0.0, 0.0, 0.5}},
      {{0.5, 0.5, 0.5, 0.0}, {1.0, 1.0, 1.0, 1.0}},
      {{0.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0}}
    };
    for (int s = 0; s < 3; s++) {
      for (int t = 0; t < 2; t++) {
        double mean = Arrays.stream(values[s][t]).average().orElseThrow();
        cells.add(
            cell("bench", "t" + t, SYSTEMS.get(s), "base", mean).queryNdcg10(values[s][t]).build());
      }
    }
    Leaderboard board = Leaderboard.of(cells, LeaderboardOptions.defaults());

    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.QUERIES);
    assertThat(bySystem(board))
        .containsExactly(new RankInterval(1, 2), new RankInterval(1, 1), new RankInterval(3, 3));
    assertThat(tiedForFirst(board)).containsExactly("dense:b", "dense:a");
    assertThat(bySystem(Leaderboard.of(cells, LeaderboardOptions.defaults())))
        .isEqualTo(bySystem(board));
  }

  @Test
  void withoutBootstrapDrawsNoRowHasARankInterval() {
    List<CellRecord> cells = new ArrayList<>();
    for (int t = 0; t < 5; t++) {
      cells.add(cell("bench", "t" + t, "dense:a", "base", 0.9).build());
      cells.add(cell("bench", "t" + t, "dense:b", "base", 0.3).build());
    }
    Leaderboard board = Leaderboard.of(cells, LeaderboardOptions.defaults().withBootstrapDraws(0));

    assertThat(board.ranked()).allMatch(row -> row.rankInterval() == null && !row.tiedForFirst());
    assertThat(board.tiedForFirst()).isNull();
  }
}
