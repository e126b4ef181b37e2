package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.DetectableEffect;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.MultipleTesting;
import dev.tenbin.scoring.stats.MultipleTesting.Correction;
import dev.tenbin.scoring.stats.PairedTest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every pair of a leaderboard's ranked rows compared on each task, query by query: the paired
 * randomization test and the paired t-test ({@link PairedTest}) on the metric's per-query values,
 * corrected across every pair of every task the report compares ({@link MultipleTesting}); per task
 * the rows' query-bootstrap intervals, groups of rows the tests cannot tell apart, and the minimum
 * detectable effect.
 *
 * <p>Rows are compared on the queries both stored a value for. Within a task, rows are ordered by
 * their task score (then {@link RowKey#ORDER}) and each pair is (higher, lower), so Δ ≥ 0 up to
 * rounding. Groups: the best row not yet in a group leads a new one, and every row not yet in a
 * group whose corrected randomization p against the leader is at least α (or untestable) joins it;
 * groups are named A, B, ... as on the leaderboard. The minimum detectable effect of a task is
 * {@link DetectableEffect#pooled}: the root mean square of the pairs' standard deviations of
 * differences with the fewest queries among them, pairs of identical rows (every per-query
 * difference 0, {@link Pair#identical}) left out: the difference this task can detect between
 * systems like these, at α and the given power.
 *
 * @param metric the metric compared (a per-query value of every cell)
 * @param correction how the family of p-values is corrected
 * @param alpha the level of the tests and groups
 * @param power the power of the minimum detectable effect
 * @param permutations randomization draws beyond {@value PairedTest#EXACT_UP_TO} queries
 * @param seed their seed
 * @param tasks one entry per task of the leaderboard, in its task order
 */
public record PairedComparisons(
    String metric,
    Correction correction,
    double alpha,
    double power,
    int permutations,
    long seed,
    List<TaskComparisons> tasks) {

  public static final double ALPHA = 0.05;
  public static final double POWER = 0.8;
  public static final int DEFAULT_PERMUTATIONS = 10_000;

  /**
   * One task.
   *
   * @param task the task
   * @param rows the ranked rows with per-query values, by task score
   * @param scores task score × 100 per row
   * @param intervals query-bootstrap 95% interval × 100 per row ({@link QueryBootstrap})
   * @param groups group name per row
   * @param queries the fewest queries a pair shares; 0 when nothing could be compared
   * @param detectableEffect minimum detectable effect × 100, pairs of identical rows left out; NaN
   *     with fewer than two rows, or when every pair is identical
   * @param pairs every pair of rows, (higher, lower), in row order
   * @param withoutQueries ranked rows left out: their cells stored no per-query values
   */
  public record TaskComparisons(
      TaskRef task,
      List<RowKey> rows,
      Map<RowKey, Double> scores,
      Map<RowKey, Interval> intervals,
      Map<RowKey, String> groups,
      int queries,
      double detectableEffect,
      List<Pair> pairs,
      List<RowKey> withoutQueries) {
    /** The pairs of identical rows, left out of the minimum detectable effect. */
    public List<Pair> identicalPairs() {
      return pairs.stream().filter(Pair::identical).toList();
    }
  }

  /**
   * Two rows on one task.
   *
   * @param higher the row with the higher task score
   * @param lower the other
   * @param queries the queries both stored
   * @param delta mean difference higher − lower × 100 over those queries
   * @param deltaInterval t interval of delta at 1 − α, × 100
   * @param randomizationP two-sided p of the paired randomization test
   * @param tTestP two-sided p of the paired t-test
   * @param randomizationAdjusted randomizationP corrected across the family
   * @param tTestAdjusted tTestP corrected across the family
   * @param identical every per-query difference is 0 ({@link PairedTest#identical})
   * @param randomizationAtLimit randomizationP is the sampled test's resolution limit, 1 / (draws +
   *     1): the true p is at most that ({@link PairedTest#randomizationAtLimit})
   */
  public record Pair(
      RowKey higher,
      RowKey lower,
      int queries,
      double delta,
      Interval deltaInterval,
      double randomizationP,
      double tTestP,
      double randomizationAdjusted,
      double tTestAdjusted,
      boolean identical,
      boolean randomizationAtLimit) {

    /** Whether the corrected randomization test separates the two rows at {@code alpha}. */
    public boolean separated(double alpha) {
      return randomizationAdjusted < alpha;
    }
  }

  /**
   * Compares the ranked rows of {@code matrix} on each of its tasks.
   *
   * @param ranked the leaderboard's complete rows
   */
  static PairedComparisons of(
      ScoreMatrix matrix, List<RowKey> ranked, Correction correction, int permutations, long seed) {
    record Raw(RowKey higher, RowKey lower, PairedTest test) {}
    List<List<Raw>> rawByTask = new ArrayList<>();
    List<List<RowKey>> rowsByTask = new ArrayList<>();
    List<List<RowKey>> missingByTask = new ArrayList<>();
    List<Double> allRandomization = new ArrayList<>();
    List<Double> allT = new ArrayList<>();
    for (TaskRef task : matrix.tasks()) {
      Map<RowKey, Map<String, Double>> values = new LinkedHashMap<>();
      List<RowKey> missing = new ArrayList<>();
      for (RowKey row : ranked) {
        CellRecord cell = matrix.cell(row, task).orElseThrow();
        Map<String, Double> perQuery = PerQueryValues.of(cell, matrix.metric());
        if (perQuery.isEmpty()) {
          missing.add(row);
        } else {
          values.put(row, perQuery);
        }
      }
      List<RowKey> rows =
          values.keySet().stream()
              .sorted(
                  Comparator.comparing((RowKey r) -> -matrix.score(r, task))
                      .thenComparing(RowKey.ORDER))
              .toList();
      List<int[]> indexPairs = new ArrayList<>();
      for (int i = 0; i < rows.size(); i++) {
        for (int j = i + 1; j < rows.size(); j++) {
          indexPairs.add(new int[] {i, j});
        }
      }
      // Each pair's test is seeded alike and independent of the others: computed in parallel,
      // gathered in pair order, the same results as one by one.
      List<Raw> raw =
          indexPairs.parallelStream()
              .map(
                  pair -> {
                    Map<String, Double> a = values.get(rows.get(pair[0]));
                    Map<String, Double> b = values.get(rows.get(pair[1]));
                    List<String> shared = PerQueryValues.shared(List.of(a, b));
                    PairedTest test =
                        PairedTest.of(
                            PerQueryValues.values(a, shared),
                            PerQueryValues.values(b, shared),
                            1 - ALPHA,
                            permutations,
                            seed);
                    return new Raw(rows.get(pair[0]), rows.get(pair[1]), test);
                  })
              .toList();
      for (Raw r : raw) {
        allRandomization.add(r.test().randomizationP());
        allT.add(r.test().tTestP());
      }
      rawByTask.add(raw);
      rowsByTask.add(rows);
      missingByTask.add(List.copyOf(missing));
    }
    double[] randomizationAdjusted =
        MultipleTesting.adjust(
            allRandomization.stream().mapToDouble(Double::doubleValue).toArray(), correction);
    double[] tAdjusted =
        MultipleTesting.adjust(
            allT.stream().mapToDouble(Double::doubleValue).toArray(), correction);
    List<TaskComparisons> tasks = new ArrayList<>();
    int next = 0;
    for (int t = 0; t < matrix.tasks().size(); t++) {
      TaskRef task = matrix.tasks().get(t);
      List<Pair> pairs = new ArrayList<>();
      List<PairedTest> tests = new ArrayList<>();
      int fewest = Integer.MAX_VALUE;
      for (Raw raw : rawByTask.get(t)) {
        PairedTest test = raw.test();
        pairs.add(
            new Pair(
                raw.higher(),
                raw.lower(),
                test.queries(),
                100 * test.meanDifference(),
                new Interval(
                    100 * test.differenceInterval().low(), 100 * test.differenceInterval().high()),
                test.randomizationP(),
                test.tTestP(),
                randomizationAdjusted[next],
                tAdjusted[next],
                test.identical(),
                test.randomizationAtLimit(permutations)));
        next++;
        fewest = Math.min(fewest, test.queries());
        tests.add(test);
      }
      List<RowKey> rows = rowsByTask.get(t);
      Map<RowKey, Double> scores = new LinkedHashMap<>();
      Map<RowKey, Interval> intervals = new LinkedHashMap<>();
      for (RowKey row : rows) {
        scores.put(row, matrix.score(row, task));
        Interval interval =
            QueryBootstrap.of(matrix.cell(row, task).orElseThrow()).get(matrix.metric());
        if (interval != null) {
          intervals.put(row, new Interval(100 * interval.low(), 100 * interval.high()));
        }
      }
      int queries = pairs.isEmpty() ? 0 : fewest;
      double effect = 100 * DetectableEffect.pooled(tests, ALPHA, POWER);
      tasks.add(
          new TaskComparisons(
              task,
              rows,
              scores,
              intervals,
              groups(rows, pairs),
              queries,
              effect,
              List.copyOf(pairs),
              missingByTask.get(t)));
    }
    return new PairedComparisons(
        matrix.metric(), correction, ALPHA, POWER, permutations, seed, List.copyOf(tasks));
  }

  private static Map<RowKey, String> groups(List<RowKey> rows, List<Pair> pairs) {
    Map<RowKey, Map<RowKey, Pair>> byRow = new LinkedHashMap<>();
    for (Pair pair : pairs) {
      byRow.computeIfAbsent(pair.higher(), r -> new LinkedHashMap<>()).put(pair.lower(), pair);
      byRow.computeIfAbsent(pair.lower(), r -> new LinkedHashMap<>()).put(pair.higher(), pair);
    }
    Map<RowKey, String> groups = new LinkedHashMap<>();
    int count = 0;
    for (RowKey leader : rows) {
      if (groups.containsKey(leader)) {
        continue;
      }
      String name = StatisticalGroups.name(count++);
      groups.put(leader, name);
      for (RowKey row : rows) {
        if (groups.containsKey(row)) {
          continue;
        }
        Pair pair = byRow.getOrDefault(leader, Map.of()).get(row);
        if (pair == null || Double.isNaN(pair.randomizationAdjusted()) || !pair.separated(ALPHA)) {
          groups.put(row, name);
        }
      }
    }
    return groups;
  }

  /** Whether any task has a pair to test: false when every task has fewer than two rows. */
  public boolean hasPairs() {
    return tasks.stream().anyMatch(task -> !task.pairs().isEmpty());
  }

  /** The pair of two rows on a task, in either order, or null. */
  public Pair pair(TaskRef task, RowKey a, RowKey b) {
    for (TaskComparisons comparisons : tasks) {
      if (comparisons.task().equals(task)) {
        for (Pair pair : comparisons.pairs()) {
          if ((pair.higher().equals(a) && pair.lower().equals(b))
              || (pair.higher().equals(b) && pair.lower().equals(a))) {
            return pair;
          }
        }
      }
    }
    return null;
  }
}
