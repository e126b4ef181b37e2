package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.RankInterval;
import java.util.Map;

/**
 * One row of a leaderboard.
 *
 * @param key system, variant and mode
 * @param facts dimension, parameters, bytes per vector, latency
 * @param scores score (metric × 100) per covered task, in task order
 * @param tieRanges tie range (× 100) per covered task
 * @param benchmarks hierarchical score per covered benchmark
 * @param micro micro aggregate over the covered tasks
 * @param macro macro aggregate over the covered tasks
 * @param covered how many tasks of the scope the row has
 * @param total how many tasks the scope has
 * @param rank competition rank by the chosen aggregate; null for an incomplete (unranked) row
 * @param borda Borda score among complete rows; null when unranked
 * @param delta difference to the system's base row; null when that row is absent
 * @param microInterval task-bootstrap 95% interval of micro; null when unranked or not bootstrapped
 * @param macroInterval task-bootstrap 95% interval of macro; null likewise
 * @param swapWithNext probability of swapping rank with the next ranked row, by the bootstrap of
 *     the leaderboard's {@linkplain Leaderboard#intervalSource() interval source}; null for the
 *     last (micro and macro intervals are null when the scope has fewer than {@link
 *     Leaderboard#MIN_TASKS_FOR_TASK_BOOTSTRAP} tasks)
 * @param queryInterval in a scope of 1 to 4 tasks, the query-bootstrap 95% interval of the chosen
 *     aggregate (× 100): of a single task, the one its cell stored ({@link QueryBootstrap}); of 2
 *     to 4, {@link QueryStrataBootstrap}'s; null otherwise or without per-query values
 * @param statisticalGroup the {@link StatisticalGroups} name of a ranked row by the intervals the
 *     leaderboard shows ({@link Leaderboard#interval}); null when it shows none
 * @param rankInterval the 95% interval of a ranked row's rank over the draws of the bootstrap that
 *     gives P(swap next) (over tasks from {@link Leaderboard#MIN_TASKS_FOR_TASK_BOOTSTRAP} tasks,
 *     over every task's queries below), the ranked rows ranked by the chosen aggregate in each draw
 *     ({@link RankInterval}); null when unranked or when that bootstrap did not run
 */
public record LeaderboardRow(
    RowKey key,
    RowFacts facts,
    Map<TaskRef, Double> scores,
    Map<TaskRef, Double> tieRanges,
    Map<String, Double> benchmarks,
    double micro,
    double macro,
    int covered,
    int total,
    Integer rank,
    Double borda,
    BaseDelta delta,
    Interval microInterval,
    Interval macroInterval,
    Double swapWithNext,
    Interval queryInterval,
    String statisticalGroup,
    RankInterval rankInterval) {

  /** Whether the row is ranked: it has every task of the scope. */
  public boolean complete() {
    return rank != null;
  }

  /**
   * Whether the row is not separable from the top: its rank interval includes 1, i.e. at least 2.5%
   * of the bootstrap draws rank it first (alone or tied). False without a rank interval.
   */
  public boolean tiedForFirst() {
    return rankInterval != null && rankInterval.includesFirst();
  }

  /** The chosen aggregate. */
  public double score(Aggregate aggregate) {
    return aggregate == Aggregate.MICRO ? micro : macro;
  }

  /** The interval of the chosen aggregate, or null. */
  public Interval interval(Aggregate aggregate) {
    return aggregate == Aggregate.MICRO ? microInterval : macroInterval;
  }

  /** The tie range of an aggregate: the same aggregate over the tasks' tie ranges. */
  public double tieRange(Aggregate aggregate) {
    return aggregate.of(java.util.List.copyOf(tieRanges.keySet()), tieRanges::get);
  }
}
