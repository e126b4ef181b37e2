package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.eval.aggregate.PairedComparisons.Pair;
import dev.tenbin.eval.aggregate.PairedComparisons.TaskComparisons;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.stats.DetectableEffect;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.MultipleTesting;
import dev.tenbin.scoring.stats.MultipleTesting.Correction;
import dev.tenbin.scoring.stats.PairedTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Three systems on two tasks of 30 queries: "strong" and "twin" differ by ±0.05 on alternate
 * queries (no difference), "weak" is 0.25 below "strong" on every query but varies (a clear one).
 */
class PairedComparisonsTest {
  private static final int QUERIES = 30;

  private static double[] strong(int task) {
    double[] values = new double[QUERIES];
    for (int q = 0; q < QUERIES; q++) {
      values[q] = 0.4 + 0.02 * ((7 * q + 3 * task) % 25);
    }
    return values;
  }

  private static double[] twin(int task) {
    double[] values = strong(task);
    for (int q = 0; q < QUERIES; q++) {
      values[q] += q % 2 == 0 ? 0.05 : -0.05;
    }
    return values;
  }

  private static double[] weak(int task) {
    double[] values = strong(task);
    for (int q = 0; q < QUERIES; q++) {
      values[q] -= 0.25 + 0.01 * (q % 5);
    }
    return values;
  }

  private static CellRecord stored(String task, String system, double[] values) {
    return cell("bench", task, system, "base", Arrays.stream(values).average().orElseThrow())
        .queryNdcg10(values)
        .build();
  }

  private static List<CellRecord> cells() {
    List<CellRecord> cells = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      String task = "t" + t;
      cells.add(stored(task, "dense:strong", strong(t)));
      cells.add(stored(task, "dense:twin", twin(t)));
      cells.add(stored(task, "dense:weak", weak(t)));
    }
    return cells;
  }

  private static Leaderboard board(List<CellRecord> cells, Correction correction) {
    return Leaderboard.of(
        cells, LeaderboardOptions.defaults().withPermutations(2_000).withCorrection(correction));
  }

  private static String id(Pair pair) {
    return pair.higher().system().model() + ">" + pair.lower().system().model();
  }

  @Test
  void everyPairOfEveryTaskIsTestedOnItsQueriesAndCorrectedAsOneFamily() {
    PairedComparisons paired = board(cells(), Correction.HOLM).paired();

    assertThat(paired.tasks()).hasSize(2);
    List<Double> raw = new ArrayList<>();
    List<Pair> all = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      TaskComparisons task = paired.tasks().get(t);
      assertThat(task.queries()).isEqualTo(QUERIES);
      assertThat(task.pairs()).extracting(PairedComparisonsTest::id).hasSize(3);
      for (Pair pair : task.pairs()) {
        double[] higher = values(pair.higher().system().model(), t);
        double[] lower = values(pair.lower().system().model(), t);
        PairedTest direct = PairedTest.of(higher, lower, 0.95, 2_000, 42);
        assertThat(pair.delta()).isCloseTo(100 * direct.meanDifference(), within(1e-9));
        assertThat(pair.delta()).isGreaterThanOrEqualTo(-1e-9);
        assertThat(pair.tTestP()).isEqualTo(direct.tTestP());
        assertThat(pair.randomizationP()).isEqualTo(direct.randomizationP());
        assertThat(pair.deltaInterval().low())
            .isCloseTo(100 * direct.differenceInterval().low(), within(1e-9));
        raw.add(pair.randomizationP());
        all.add(pair);
      }
    }
    double[] holm =
        MultipleTesting.adjust(raw.stream().mapToDouble(d -> d).toArray(), Correction.HOLM);
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i).randomizationAdjusted()).isEqualTo(holm[i]);
      assertThat(all.get(i).randomizationAdjusted()).isGreaterThanOrEqualTo(raw.get(i));
    }
  }

  @Test
  void theTwinsShareAGroupAndTheWeakSystemIsSeparatedOnEveryTask() {
    for (TaskComparisons task : board(cells(), Correction.HOLM).paired().tasks()) {
      String strongGroup = groupOf(task, "strong");
      assertThat(groupOf(task, "twin")).isEqualTo(strongGroup);
      assertThat(groupOf(task, "weak")).isNotEqualTo(strongGroup);
      for (Pair pair : task.pairs()) {
        boolean withWeak = pair.lower().system().model().equals("weak");
        assertThat(pair.separated(0.05)).as(id(pair)).isEqualTo(withWeak);
      }
    }
  }

  @Test
  void theDetectableEffectComesFromThePooledSpreadOfThePairsDifferences() {
    TaskComparisons task = board(cells(), Correction.HOLM).paired().tasks().getFirst();
    double squares = 0;
    for (Pair pair : task.pairs()) {
      double sd =
          PairedTest.of(
                  values(pair.higher().system().model(), 0),
                  values(pair.lower().system().model(), 0),
                  0.95,
                  1,
                  1)
              .sdDifference();
      squares += sd * sd;
    }
    double expected = 100 * DetectableEffect.paired(Math.sqrt(squares / 3), QUERIES, 0.05, 0.8);
    assertThat(task.detectableEffect()).isCloseTo(expected, within(1e-9));
    // the twins' ±5-point differences alone could not be detected; the weak system's 25 can
    assertThat(task.detectableEffect()).isBetween(1.0, 25.0);
  }

  @Test
  void benjaminiHochbergIsNeverStricterThanHolm() {
    PairedComparisons holm = board(cells(), Correction.HOLM).paired();
    PairedComparisons bh = board(cells(), Correction.BENJAMINI_HOCHBERG).paired();
    for (int t = 0; t < 2; t++) {
      for (int i = 0; i < 3; i++) {
        assertThat(bh.tasks().get(t).pairs().get(i).randomizationAdjusted())
            .isLessThanOrEqualTo(holm.tasks().get(t).pairs().get(i).randomizationAdjusted());
      }
    }
  }

  @Test
  void twoTasksGetIntervalsAndSwapProbabilitiesFromTheirQueries() {
    Leaderboard board = board(cells(), Correction.HOLM);

    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.QUERIES);
    List<LeaderboardRow> ranked = board.ranked();
    for (LeaderboardRow row : ranked) {
      Interval interval = board.interval(row);
      assertThat(interval).as(row.key().id()).isNotNull();
      assertThat(interval.contains(row.macro())).as(row.key().id()).isTrue();
    }
    LeaderboardRow last = ranked.getLast();
    assertThat(last.key().system().model()).isEqualTo("weak");
    assertThat(last.swapWithNext()).isNull();
    // the twins swap about as often as a coin falls; the weak system never overtakes
    assertThat(ranked.get(0).swapWithNext()).isBetween(0.05, 0.95);
    assertThat(ranked.get(1).swapWithNext()).isEqualTo(0.0);
    assertThat(ranked.get(0).statisticalGroup()).isEqualTo(ranked.get(1).statisticalGroup());
    assertThat(last.statisticalGroup()).isNotEqualTo(ranked.get(0).statisticalGroup());
  }

  @Test
  void aRowWithoutPerQueryValuesIsLeftOutOfTheTestsAndSaidSo() {
    List<CellRecord> cells = new ArrayList<>(cells());
    cells.add(cell("bench", "t0", "bm25", "base", 0.5).build());
    cells.add(cell("bench", "t1", "bm25", "base", 0.5).build());
    Leaderboard board = board(cells, Correction.HOLM);

    for (TaskComparisons task : board.paired().tasks()) {
      assertThat(task.withoutQueries())
          .extracting(RowKey::id)
          .containsExactly("bm25/base/retrieval");
      assertThat(task.rows()).hasSize(3);
    }
    // the bootstrap over queries needs every ranked row's
    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.NONE);
  }

  @Test
  void noPermutationsMeansNoPairedTests() {
    assertThat(Leaderboard.of(cells(), LeaderboardOptions.defaults().withPermutations(0)).paired())
        .isNull();
  }

  private static String groupOf(TaskComparisons task, String model) {
    return task.groups().entrySet().stream()
        .filter(e -> e.getKey().system().model().equals(model))
        .findFirst()
        .orElseThrow()
        .getValue();
  }

  private static double[] values(String model, int task) {
    return switch (model) {
      case "strong" -> strong(task);
      case "twin" -> twin(task);
      case "weak" -> weak(task);
      default -> throw new IllegalArgumentException(model);
    };
  }
}
