package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.Borda;
import dev.tenbin.scoring.stats.CompetitionRanks;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AggregationTest {
  private static final LeaderboardOptions QUICK =
      LeaderboardOptions.defaults().withBootstrapDraws(0);

  /**
   * Benchmark "multi": xquad in three languages (80, 60, 40) and mlqa-en (20); "mono": one task
   * (70).
   */
  private static List<CellRecord> multilingual(String system) {
    return List.of(
        cell("multi", "xquad-en", system, "base", 0.80).dataset("xquad").build(),
        cell("multi", "xquad-de", system, "base", 0.60).dataset("xquad").language("de").build(),
        cell("multi", "xquad-zh", system, "base", 0.40).dataset("xquad").language("zh").build(),
        cell("multi", "mlqa-en", system, "base", 0.20).dataset("mlqa").build(),
        cell("mono", "scifact", system, "base", 0.70).build());
  }

  @Test
  void macroAveragesLanguagesWithinADatasetBeforeDatasetsAndBenchmarks() {
    Leaderboard board = Leaderboard.of(multilingual("dense:e5"), QUICK);
    LeaderboardRow row = board.rows().getFirst();

    // multi = mean(xquad = mean(80, 60, 40) = 60, mlqa = 20) = 40, not the flat mean 50
    assertThat(row.benchmarks().get("multi")).isCloseTo(40.0, within(1e-9));
    assertThat(row.benchmarks().get("mono")).isCloseTo(70.0, within(1e-9));
    assertThat(row.macro()).isCloseTo((40.0 + 70.0) / 2, within(1e-9));
    assertThat(row.micro()).isCloseTo((80 + 60 + 40 + 20 + 70) / 5.0, within(1e-9));
  }

  @Test
  void macroOfAMonolingualBenchmarkIsThePlainMeanOverItsTasks() {
    List<TaskRef> tasks =
        List.of(
            new TaskRef("b", "t1", "t1", "en", ""),
            new TaskRef("b", "t2", "t2", "en", ""),
            new TaskRef("b", "t3", "t3", "en", ""));
    double[] scores = {10, 20, 60};
    assertThat(Aggregate.MACRO.of(tasks, t -> scores[tasks.indexOf(t)]))
        .isCloseTo(30.0, within(1e-12));
    assertThat(Aggregate.MICRO.of(tasks, t -> scores[tasks.indexOf(t)]))
        .isCloseTo(30.0, within(1e-12));
  }

  @Test
  void aRowMissingATaskOfTheScopeIsListedUnrankedWithItsCoverage() {
    List<CellRecord> cells = new ArrayList<>(multilingual("dense:e5"));
    cells.addAll(multilingual("bm25"));
    cells.removeIf(
        c -> c.key().system().name().equals("bm25") && c.key().task().task().equals("xquad-de"));

    Leaderboard board = Leaderboard.of(cells, QUICK);

    LeaderboardRow bm25 = row(board, "bm25");
    assertThat(bm25.complete()).isFalse();
    assertThat(bm25.rank()).isNull();
    assertThat(bm25.borda()).isNull();
    assertThat(bm25.covered()).isEqualTo(4);
    assertThat(bm25.total()).isEqualTo(5);
    assertThat(row(board, "dense:e5").rank()).isEqualTo(1);
    assertThat(board.rows().getLast().key().system().name()).isEqualTo("bm25");
  }

  @Test
  void completenessIsJudgedWithinTheDisplayedScope() {
    List<CellRecord> cells = new ArrayList<>(multilingual("dense:e5"));
    cells.addAll(multilingual("bm25"));
    cells.removeIf(
        c -> c.key().system().name().equals("bm25") && c.key().task().task().equals("xquad-de"));

    Leaderboard english = Leaderboard.of(cells, QUICK.withScope(new Scope(null, "en", null, null)));

    assertThat(english.tasks())
        .extracting(TaskRef::task)
        .containsExactly("scifact", "mlqa-en", "xquad-en");
    assertThat(row(english, "bm25").complete()).isTrue();
    assertThat(row(english, "bm25").total()).isEqualTo(3);
  }

  @Test
  void completenessIsJudgedPerVariant() {
    List<CellRecord> cells = new ArrayList<>(multilingual("dense:e5"));
    cells.add(cell("mono", "scifact", "dense:e5", "int8", 0.69).build());

    Leaderboard board = Leaderboard.of(cells, QUICK);

    assertThat(rowOf(board, "dense:e5", "base").complete()).isTrue();
    assertThat(rowOf(board, "dense:e5", "int8").complete()).isFalse();
    assertThat(rowOf(board, "dense:e5", "int8").covered()).isEqualTo(1);
  }

  @Test
  void equalScoresShareTheBestRankAndTheNextRankIsSkipped() {
    assertThat(CompetitionRanks.of(new double[] {90, 80, 80, 70})).containsExactly(1, 2, 2, 4);
    assertThat(CompetitionRanks.of(new double[] {70, 80, 90, 80})).containsExactly(4, 2, 1, 2);

    List<CellRecord> cells =
        List.of(
            cell("b", "t", "dense:a", "base", 0.9).build(),
            cell("b", "t", "dense:b", "base", 0.8).build(),
            cell("b", "t", "dense:c", "base", 0.8).build(),
            cell("b", "t", "dense:d", "base", 0.7).build());
    assertThat(Leaderboard.of(cells, QUICK).rows())
        .extracting(LeaderboardRow::rank)
        .containsExactly(1, 2, 2, 4);
  }

  @Test
  void bordaCountsBeatenRowsPerTaskWithTiesSplit() {
    // task 1: A = B = 50 > C = 40; task 2: B = 30 > C = 20 > A = 10
    double[] borda = Borda.of(new double[][] {{50, 10}, {50, 30}, {40, 20}});
    assertThat(borda).containsExactly(1.5, 3.5, 1.0);
    assertThat(borda[0] + borda[1] + borda[2]).isEqualTo(3 * 2 / 2.0 * 2); // pairs x tasks
  }

  @Test
  void deltaVsBaseIsTheDifferenceOnSharedTasksAndAbsentWithoutABase() {
    List<CellRecord> cells = new ArrayList<>(multilingual("dense:e5"));
    for (CellRecord base : multilingual("dense:e5")) {
      var k = base.key();
      cells.add(
          cell(
                  k.task().benchmark(),
                  k.task().task(),
                  "dense:e5",
                  "int8",
                  base.metrics().get("ndcg@10") - 0.02)
              .dataset(k.task().dataset())
              .language(k.task().language())
              .build());
    }
    cells.add(cell("mono", "scifact", "dense:lonely", "binary", 0.5).build());

    Leaderboard board = Leaderboard.of(cells, QUICK);

    BaseDelta int8 = rowOf(board, "dense:e5", "int8").delta();
    assertThat(int8.micro()).isCloseTo(-2.0, within(1e-9));
    assertThat(int8.macro()).isCloseTo(-2.0, within(1e-9));
    assertThat(int8.benchmarks().get("multi")).isCloseTo(-2.0, within(1e-9));
    assertThat(int8.tasks())
        .hasSize(5)
        .allSatisfy((task, delta) -> assertThat(delta).isCloseTo(-2.0, within(1e-9)));
    assertThat(rowOf(board, "dense:e5", "base").delta().macro()).isZero();
    assertThat(rowOf(board, "dense:lonely", "binary").delta()).isNull();
  }

  @Test
  void theMostRecentlyFinishedOfTwoCopiesOfACellCounts() {
    List<CellRecord> cells =
        List.of(
            cell("b", "t", "bm25", "base", 0.1).finishedAt("2025-01-01T00:00:00Z").build(),
            cell("b", "t", "bm25", "base", 0.3).finishedAt("2025-02-01T00:00:00Z").build(),
            cell("b", "t", "bm25", "base", 0.2).finishedAt("2025-01-15T00:00:00Z").build());
    assertThat(Leaderboard.of(cells, QUICK).rows().getFirst().micro())
        .isCloseTo(30.0, within(1e-9));
  }

  @Test
  void rankingFollowsTheChosenAggregate() {
    // A: strong on the one-task benchmark; B: strong on the three-task benchmark
    List<CellRecord> cells = new ArrayList<>();
    for (String t : List.of("t1", "t2", "t3")) {
      cells.add(cell("big", t, "dense:a", "base", 0.30).build());
      cells.add(cell("big", t, "dense:b", "base", 0.50).build());
    }
    cells.add(cell("small", "s", "dense:a", "base", 0.90).build());
    cells.add(cell("small", "s", "dense:b", "base", 0.50).build());

    // micro: a = (90 + 3*30)/4 = 45 < b = 50; macro: a = (30 + 90)/2 = 60 > b = 50
    assertThat(
            Leaderboard.of(cells, QUICK.withAggregate(Aggregate.MICRO))
                .rows()
                .getFirst()
                .key()
                .system()
                .model())
        .isEqualTo("b");
    assertThat(
            Leaderboard.of(cells, QUICK.withAggregate(Aggregate.MACRO))
                .rows()
                .getFirst()
                .key()
                .system()
                .model())
        .isEqualTo("a");
  }

  static LeaderboardRow row(Leaderboard board, String system) {
    return board.rows().stream()
        .filter(r -> r.key().system().name().equals(system))
        .findFirst()
        .orElseThrow();
  }

  static LeaderboardRow rowOf(Leaderboard board, String system, String variant) {
    return board.rows().stream()
        .filter(r -> r.key().system().name().equals(system) && r.key().variant().equals(variant))
        .findFirst()
        .orElseThrow();
  }
}
