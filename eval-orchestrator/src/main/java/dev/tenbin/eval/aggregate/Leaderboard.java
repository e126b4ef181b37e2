package dev.tenbin.eval.aggregate;

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
}
