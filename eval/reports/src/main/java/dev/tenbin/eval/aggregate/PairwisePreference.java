package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.BradleyTerry;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.Resampling;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The pairwise-preference view of a leaderboard: {@link BradleyTerry} log-strengths of the ranked
 * rows from their per-query wins, pooled over every task of the scope (each of a task's queries
 * every ranked row stored a value for is one meeting of every two rows, a round robin; a tie wins
 * half each; a task weighs by its number of queries), with 95% percentile intervals from the same
 * kind of draws as the rank intervals, with the leaderboard's draws and seed: from {@link
 * Leaderboard#MIN_TASKS_FOR_TASK_BOOTSTRAP} tasks the tasks are resampled, stratified by benchmark
 * ({@link TaskBootstrap}), below it every task's queries ({@link QueryStrataBootstrap}); each draw
 * pools the wins of its sample and fits again. A draw whose wins have no finite fit (a group of
 * rows that never loses to the rest) is left out of the intervals and counted.
 *
 * @param strengths per ranked row in rank order: its log-strength (θ, mean 0 over the rows)
 * @param intervals per ranked row: the 95% interval of θ over the draws; empty without draws
 * @param draws the draws run (0: no intervals)
 * @param drawsWithoutFit how many of them had no finite fit
 * @param resampledTasks whether the draws resampled tasks (else every task's queries)
 */
public record PairwisePreference(
    Map<RowKey, Double> strengths,
    Map<RowKey, Interval> intervals,
    int draws,
    int drawsWithoutFit,
    boolean resampledTasks) {

  /**
   * The view of the ranked rows, or null when there are fewer than two, a ranked row stored no
   * per-query values for a task, a task has no query every ranked row shares, or the pooled wins
   * have no finite fit.
   */
  static PairwisePreference of(ScoreMatrix matrix, List<RowKey> ranked, int draws, long seed) {
    List<TaskRef> tasks = matrix.tasks();
    int rows = ranked.size();
    if (rows < 2 || tasks.isEmpty()) {
      return null;
    }
    // values[task][row][query]
    double[][][] values = new double[tasks.size()][rows][];
    for (int t = 0; t < tasks.size(); t++) {
      List<Map<String, Double>> cells = new ArrayList<>();
      for (RowKey row : ranked) {
        cells.add(PerQueryValues.of(matrix.cell(row, tasks.get(t)).orElseThrow(), matrix.metric()));
      }
      List<String> shared = PerQueryValues.shared(cells);
      if (shared.isEmpty()) {
        return null;
      }
      for (int r = 0; r < rows; r++) {
        values[t][r] = PerQueryValues.values(cells.get(r), shared);
      }
    }
    // roundWins[task][query][row]: the row's wins on that query; taskWins[task][row]: their sum
    double[][][] roundWins = new double[tasks.size()][][];
    double[][] taskWins = new double[tasks.size()][rows];
    int[] taskQueries = new int[tasks.size()];
    double[] pooled = new double[rows];
    int meetings = 0;
    for (int t = 0; t < tasks.size(); t++) {
      int n = values[t][0].length;
      taskQueries[t] = n;
      meetings += n;
      roundWins[t] = new double[n][];
      double[] round = new double[rows];
      for (int q = 0; q < n; q++) {
        for (int r = 0; r < rows; r++) {
          round[r] = values[t][r][q];
        }
        roundWins[t][q] = BradleyTerry.roundWins(round);
        add(taskWins[t], roundWins[t][q]);
      }
      add(pooled, taskWins[t]);
    }
    double[] fitted = BradleyTerry.fit(pooled, meetings);
    if (fitted == null) {
      return null;
    }
    boolean resampleTasks = tasks.size() >= Leaderboard.MIN_TASKS_FOR_TASK_BOOTSTRAP;
    List<List<Integer>> strata = strata(tasks);
    double[][] thetas = new double[rows][Math.max(draws, 0)];
    int withoutFit = 0;
    SplittableRandom random = new SplittableRandom(seed);
    for (int draw = 0; draw < draws; draw++) {
      double[] wins = new double[rows];
      int drawn = 0;
      if (resampleTasks) {
        for (List<Integer> stratum : strata) {
          for (int i : Resampling.indices(random, stratum.size(), stratum.size())) {
            add(wins, taskWins[stratum.get(i)]);
            drawn += taskQueries[stratum.get(i)];
          }
        }
      } else {
        for (double[][] task : roundWins) {
          for (int q : Resampling.indices(random, task.length, task.length)) {
            add(wins, task[q]);
          }
          drawn += task.length;
        }
      }
      double[] theta = BradleyTerry.fit(wins, drawn);
      if (theta == null) {
        withoutFit++;
      }
      for (int r = 0; r < rows; r++) {
        thetas[r][draw] = theta == null ? Double.NaN : theta[r];
      }
    }
    Map<RowKey, Double> strengths = new LinkedHashMap<>();
    Map<RowKey, Interval> intervals = new LinkedHashMap<>();
    for (int r = 0; r < rows; r++) {
      strengths.put(ranked.get(r), fitted[r]);
      Interval interval = draws > 0 ? Interval.percentile(thetas[r], 0.95) : null;
      if (interval != null) {
        intervals.put(ranked.get(r), interval);
      }
    }
    return new PairwisePreference(
        strengths, intervals, Math.max(draws, 0), withoutFit, resampleTasks);
  }

  /** The task indices of each benchmark, in task order (the strata of {@link TaskBootstrap}). */
  private static List<List<Integer>> strata(List<TaskRef> tasks) {
    Map<String, List<Integer>> byBenchmark = new LinkedHashMap<>();
    for (int t = 0; t < tasks.size(); t++) {
      byBenchmark.computeIfAbsent(tasks.get(t).benchmark(), b -> new ArrayList<>()).add(t);
    }
    return List.copyOf(byBenchmark.values());
  }

  private static void add(double[] into, double[] wins) {
    for (int i = 0; i < into.length; i++) {
      into[i] += wins[i];
    }
  }
}
