package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.RankInterval;
import dev.tenbin.scoring.stats.Resampling;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * How much a leaderboard of few tasks depends on its choice of queries: each draw resamples every
 * task's queries with replacement (as many as it has, each task on its own), the same draw for
 * every row (the comparison stays paired), and recomputes each row's task means and the aggregate
 * over the tasks. Gives each ranked row the 95% percentile interval of the chosen aggregate and the
 * probability that it swaps with the next-ranked row (a tie counting half), as {@link
 * TaskBootstrap} does over tasks, and each ranked row's 95% {@link RankInterval} by the chosen
 * aggregate in every draw. A task's queries are those every ranked row stored a value for.
 * Deterministic for a given seed.
 */
final class QueryStrataBootstrap {
  private QueryStrataBootstrap() {}

  /**
   * Runs the bootstrap, or returns null when a ranked row stored no per-query values for a task or
   * a task has no query every row shares.
   *
   * @param intervals per ranked row: the interval of the chosen aggregate (× 100)
   * @param swapWithNext per ranked row but the last: the probability it swaps with the next
   * @param ranks per ranked row: its rank interval
   */
  record Result(
      Map<RowKey, Interval> intervals,
      Map<RowKey, Double> swapWithNext,
      Map<RowKey, RankInterval> ranks) {}

  static Result run(
      ScoreMatrix matrix, List<RowKey> ranked, Aggregate aggregate, int draws, long seed) {
    List<TaskRef> tasks = matrix.tasks();
    int rows = ranked.size();
    double[][][] values = new double[rows][tasks.size()][];
    for (int t = 0; t < tasks.size(); t++) {
      TaskRef task = tasks.get(t);
      List<Map<String, Double>> cells = new ArrayList<>();
      for (RowKey row : ranked) {
        cells.add(PerQueryValues.of(matrix.cell(row, task).orElseThrow(), matrix.metric()));
      }
      List<String> shared = PerQueryValues.shared(cells);
      if (shared.isEmpty()) {
        return null;
      }
      for (int r = 0; r < rows; r++) {
        values[r][t] = PerQueryValues.values(cells.get(r), shared);
      }
    }
    double[][] chosen = new double[rows][draws];
    SplittableRandom random = new SplittableRandom(seed);
    for (int draw = 0; draw < draws; draw++) {
      int[][] samples = new int[tasks.size()][];
      for (int t = 0; t < tasks.size(); t++) {
        int n = values[0][t].length;
        samples[t] = Resampling.indices(random, n, n);
      }
      for (int r = 0; r < rows; r++) {
        Map<TaskRef, Double> means = new HashMap<>();
        for (int t = 0; t < tasks.size(); t++) {
          double sum = 0;
          for (int q : samples[t]) {
            sum += values[r][t][q];
          }
          means.put(tasks.get(t), 100 * sum / samples[t].length);
        }
        chosen[r][draw] = aggregate.of(tasks, means::get);
      }
    }
    Map<RowKey, Interval> intervals = new LinkedHashMap<>();
    Map<RowKey, Double> swaps = new LinkedHashMap<>();
    for (int r = 0; r < rows; r++) {
      intervals.put(ranked.get(r), Interval.percentile(chosen[r], 0.95));
      if (r + 1 < rows && draws > 0) {
        swaps.put(ranked.get(r), TaskBootstrap.swapProbability(chosen[r], chosen[r + 1]));
      }
    }
    return new Result(intervals, swaps, TaskBootstrap.rankIntervals(ranked, chosen));
  }
}
