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
 * @param paired the paired tests of the ranked rows on each task, or null when none were asked for
 *     ({@link LeaderboardOptions#permutations()} 0) or no row is ranked
 * @param preference the Bradley–Terry view of the ranked rows' per-query wins, or null when it
 *     cannot be fitted ({@link PairwisePreference#of})
 */
public record Leaderboard(
    LeaderboardOptions options,
    ScoreMatrix matrix,
    List<LeaderboardRow> rows,
    OfficialCorrelation correlation,
    PairedComparisons paired,
    PairwisePreference preference) {

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
   * The rows not separable from the top, in rank order: the ranked rows whose rank interval
   * includes 1 ({@link LeaderboardRow#tiedForFirst()}); null when no row has a rank interval (no
   * bootstrap ran).
   */
  public List<LeaderboardRow> tiedForFirst() {
    List<LeaderboardRow> ranked = ranked();
    if (ranked.stream().allMatch(row -> row.rankInterval() == null)) {
      return null;
    }
    return ranked.stream().filter(LeaderboardRow::tiedForFirst).toList();
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
    /**
     * The bootstrap over queries: of the one task ({@link QueryBootstrap}, the interval its cell
     * stored) or, for 2 to 4 tasks, of every task's queries at once ({@link QueryStrataBootstrap});
     * P(swap next) from the latter in both cases.
     */
    QUERIES,
    /**
     * None: no task, or a ranked row without stored per-query values in a scope of 2 to 4 tasks.
     */
    NONE
  }

  /** The source of this leaderboard's intervals, by its number of tasks. */
  public IntervalSource intervalSource() {
    IntervalSource source = intervalSource(tasks().size());
    if (source == IntervalSource.QUERIES
        && tasks().size() > 1
        && ranked().stream().anyMatch(row -> row.queryInterval() == null)) {
      return IntervalSource.NONE;
    }
    return source;
  }

  static IntervalSource intervalSource(int tasks) {
    if (tasks >= MIN_TASKS_FOR_TASK_BOOTSTRAP) {
      return IntervalSource.TASKS;
    }
    return tasks == 0 ? IntervalSource.NONE : IntervalSource.QUERIES;
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
