package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaskBootstrapTest {
  private static final int TASKS = 12;

  private static List<CellRecord> rows(
      String system, java.util.function.IntToDoubleFunction score) {
    List<CellRecord> cells = new ArrayList<>();
    for (int t = 0; t < TASKS; t++) {
      cells.add(
          cell(t < TASKS / 2 ? "b1" : "b2", "t" + t, system, "base", score.applyAsDouble(t))
              .build());
    }
    return cells;
  }

  private static Leaderboard board(List<CellRecord> cells, long seed) {
    return Leaderboard.of(
        cells, LeaderboardOptions.defaults().withBootstrapDraws(2_000).withSeed(seed));
  }

  @Test
  void theSameSeedGivesTheSameIntervalsAndSwapProbabilities() {
    List<CellRecord> cells =
        new ArrayList<>(rows("dense:a", t -> 0.3 + 0.037 * ((7 * t) % 11) + 0.001 * t));
    cells.addAll(rows("dense:b", t -> 0.35 + 0.041 * ((5 * t) % 7) + 0.002 * t));

    Leaderboard first = board(cells, 11);
    Leaderboard again = board(cells, 11);
    Leaderboard other = board(cells, 12);

    assertThat(again.rows()).isEqualTo(first.rows());
    assertThat(other.rows()).isNotEqualTo(first.rows());
    for (LeaderboardRow row : first.rows()) {
      assertThat(row.macroInterval().contains(row.macro())).isTrue();
      assertThat(row.microInterval().contains(row.micro())).isTrue();
      assertThat(row.macroInterval().low()).isLessThan(row.macroInterval().high());
    }
  }

  @Test
  void identicalRowsSwapWithProbabilityOneHalf() {
    List<CellRecord> cells = new ArrayList<>(rows("dense:a", t -> 0.3 + 0.05 * (t % 5)));
    cells.addAll(rows("dense:b", t -> 0.3 + 0.05 * (t % 5)));

    LeaderboardRow top = board(cells, 1).rows().getFirst();

    assertThat(top.rank()).isEqualTo(1);
    assertThat(top.swapWithNext()).isEqualTo(0.5);
  }

  @Test
  void rowsWithEqualMeansButOpposedTaskScoresSwapAboutHalfTheTime() {
    // a is good where b is bad and vice versa; both average 50
    List<CellRecord> cells = new ArrayList<>(rows("dense:a", t -> t % 2 == 0 ? 0.7 : 0.3));
    cells.addAll(rows("dense:b", t -> t % 2 == 0 ? 0.3 : 0.7));

    assertThat(board(cells, 3).rows().getFirst().swapWithNext()).isBetween(0.35, 0.65);
  }

  @Test
  void farApartRowsAlmostNeverSwap() {
    List<CellRecord> cells = new ArrayList<>(rows("dense:a", t -> 0.80 + 0.01 * (t % 4)));
    cells.addAll(rows("dense:b", t -> 0.20 + 0.01 * (t % 4)));

    Leaderboard board = board(cells, 5);

    assertThat(board.rows().getFirst().swapWithNext()).isLessThan(0.001);
    assertThat(board.rows().getLast().swapWithNext()).isNull();
  }

  @Test
  void everyDrawKeepsEachBenchmarksTaskCount() {
    // a row scoring 100 on b1 and 0 on b2 has macro 50 in every stratified draw
    List<CellRecord> cells = rows("dense:a", t -> t < TASKS / 2 ? 1.0 : 0.0);
    LeaderboardRow row = board(cells, 9).rows().getFirst();
    assertThat(row.macroInterval()).isEqualTo(new Interval(50, 50));
  }
}
