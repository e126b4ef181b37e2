package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.stats.Interval;
import java.util.List;

/**
 * A ranked view of finished cells: complete rows by competition rank of the chosen aggregate, then
 * the incomplete rows (unranked, by coverage and score).
 *
 * @param options what it ranks by and covers
 * @param matrix the underlying scores
 * @param rows ranked rows first, then unranked ones
 * @param correlation agreement with the official ranking, or null when none was given
 */
public record Leaderboard(
    LeaderboardOptions options,
    ScoreMatrix matrix,
    List<LeaderboardRow> rows,
    OfficialCorrelation correlation) {

  /** Builds the leaderboard of {@code cells}. */
  public static Leaderboard of(
      List<dev.tenbin.eval.store.CellRecord> cells, LeaderboardOptions options) {
    return LeaderboardBuilder.build(cells, options);
  }

  public List<TaskRef> tasks() {
    return matrix.tasks();
  }

  public List<String> benchmarks() {
    return matrix.benchmarks();
  }

  public Aggregate aggregate() {
    return options.aggregate();
  }

  public String metric() {
    return options.metric();
  }

  public List<LeaderboardRow> ranked() {
    return rows.stream().filter(LeaderboardRow::complete).toList();
  }

  /**
   * Fewest tasks a scope needs for intervals and swap probabilities from the bootstrap over tasks:
   * with fewer, resampling them says next to nothing (two tasks give intervals such as 4.92–94.54).
   */
  public static final int MIN_TASKS_FOR_TASK_BOOTSTRAP = 5;

  /** Where the rows' intervals come from. */
  public enum IntervalSource {
    /** The bootstrap over tasks ({@link TaskBootstrap}): scopes of 5 tasks or more. */
    TASKS,
    /** The bootstrap over the queries of the one task ({@link QueryBootstrap}). */
    QUERIES,
    /** None: 2 to 4 tasks, too few to resample, too many for one task's queries. */
    NONE
  }

  /** The source of this leaderboard's intervals, by its number of tasks. */
  public IntervalSource intervalSource() {
    return intervalSource(tasks().size());
  }

  static IntervalSource intervalSource(int tasks) {
    if (tasks >= MIN_TASKS_FOR_TASK_BOOTSTRAP) {
      return IntervalSource.TASKS;
    }
    return tasks == 1 ? IntervalSource.QUERIES : IntervalSource.NONE;
  }

  /** The interval a row shows: by the aggregate, over tasks, or its task's over queries. */
  public Interval interval(LeaderboardRow row) {
    return switch (intervalSource()) {
      case TASKS -> row.interval(aggregate());
      case QUERIES -> row.queryInterval();
      case NONE -> null;
    };
  }
}
