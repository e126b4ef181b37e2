package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.CompetitionRanks;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.RankInterval;
import dev.tenbin.scoring.stats.Resampling;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * How much a leaderboard depends on its choice of tasks: each draw resamples the tasks with
 * replacement, stratified by benchmark (each benchmark keeps its number of tasks, so every
 * benchmark stays in the macro average), and recomputes every complete row's micro and macro score.
 *
 * <p>Gives each row a 95% percentile interval of both aggregates and, for each ranked row, the
 * probability that it swaps with the next-ranked row: the fraction of draws in which the lower
 * ranked row scores at least as high, a tie counting half (so two identical rows swap with
 * probability 0.5, as a fair coin would order them), and each ranked row's 95% {@link
 * RankInterval}: the ranked rows ranked by the chosen aggregate in every draw. Deterministic for a
 * given seed.
 */
public final class TaskBootstrap {
  private TaskBootstrap() {}

  /**
   * The bootstrap of complete rows.
   *
   * @param intervals per row: its micro and macro interval
   * @param swapWithNext for every row of {@code ranked} but the last: the probability it swaps with
   *     the row after it
   * @param ranks per row of {@code ranked}: its rank interval by the chosen aggregate
   */
  public record Result(
      Map<RowKey, Interval> micro,
      Map<RowKey, Interval> macro,
      Map<RowKey, Double> swapWithNext,
      Map<RowKey, RankInterval> ranks) {
    static final Result NONE = new Result(Map.of(), Map.of(), Map.of(), Map.of());
  }

  /**
   * Runs the bootstrap.
   *
   * @param matrix the scores; every row of {@code ranked} must be complete
   * @param ranked complete rows in rank order of {@code aggregate}
   * @param aggregate the aggregate the ranking is by
   * @param draws the number of resamples
   * @param seed the random seed
   */
  public static Result run(
      ScoreMatrix matrix, List<RowKey> ranked, Aggregate aggregate, int draws, long seed) {
    Map<String, List<TaskRef>> strata = new LinkedHashMap<>();
    for (TaskRef task : matrix.tasks()) {
      strata.computeIfAbsent(task.benchmark(), b -> new ArrayList<>()).add(task);
    }
    int rows = ranked.size();
    double[][] micro = new double[rows][draws];
    double[][] macro = new double[rows][draws];
    SplittableRandom random = new SplittableRandom(seed);
    for (int draw = 0; draw < draws; draw++) {
      List<TaskRef> sample = new ArrayList<>(matrix.tasks().size());
      for (List<TaskRef> stratum : strata.values()) {
        for (int i : Resampling.indices(random, stratum.size(), stratum.size())) {
          sample.add(stratum.get(i));
        }
      }
      for (int r = 0; r < rows; r++) {
        RowKey row = ranked.get(r);
        micro[r][draw] = Aggregate.MICRO.of(sample, task -> matrix.score(row, task));
        macro[r][draw] = Aggregate.MACRO.of(sample, task -> matrix.score(row, task));
      }
    }
    double[][] chosen = aggregate == Aggregate.MICRO ? micro : macro;
    Map<RowKey, Interval> microIntervals = new LinkedHashMap<>();
    Map<RowKey, Interval> macroIntervals = new LinkedHashMap<>();
    Map<RowKey, Double> swaps = new LinkedHashMap<>();
    for (int r = 0; r < rows; r++) {
      microIntervals.put(ranked.get(r), Interval.percentile(micro[r], 0.95));
      macroIntervals.put(ranked.get(r), Interval.percentile(macro[r], 0.95));
      if (r + 1 < rows && draws > 0) {
        swaps.put(ranked.get(r), swapProbability(chosen[r], chosen[r + 1]));
      }
    }
    return new Result(microIntervals, macroIntervals, swaps, rankIntervals(ranked, chosen));
  }

  /**
   * The 95% rank interval of each row of {@code ranked}, from its score in each draw ({@code
   * scores[row][draw]}); empty without draws. Shared with {@link QueryStrataBootstrap}.
   */
  static Map<RowKey, RankInterval> rankIntervals(List<RowKey> ranked, double[][] scores) {
    RankInterval[] intervals = RankInterval.of(scores, 0.95);
    Map<RowKey, RankInterval> byRow = new LinkedHashMap<>();
    for (int r = 0; r < ranked.size(); r++) {
      if (intervals[r] != null) {
        byRow.put(ranked.get(r), intervals[r]);
      }
    }
    return byRow;
  }

  static double swapProbability(double[] higher, double[] lower) {
    double swaps = 0;
    for (int draw = 0; draw < higher.length; draw++) {
      if (CompetitionRanks.tie(lower[draw], higher[draw])) {
        swaps += 0.5;
      } else if (lower[draw] > higher[draw]) {
        swaps += 1;
      }
    }
    return swaps / higher.length;
  }
}
