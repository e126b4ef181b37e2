package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import java.util.List;
import java.util.function.Function;

/**
 * The two Pareto charts of a leaderboard's ranked rows: quality against bytes per vector and
 * latency.
 */
final class LeaderboardCharts {
  static final String BYTES_ID = "chart-bytes";
  static final String LATENCY_ID = "chart-latency";

  private LeaderboardCharts() {}

  static String bytesPerVector(Leaderboard board) {
    return ParetoChart.svg(
        BYTES_ID,
        "Quality against memory",
        "stored bytes per document",
        quality(board),
        points(board, row -> row.facts().bytesPerVector()));
  }

  static String latency(Leaderboard board) {
    return ParetoChart.svg(
        LATENCY_ID,
        "Quality against query latency",
        LATENCY_COST,
        quality(board),
        points(board, row -> row.facts().latencyUs()));
  }

  private static final String LATENCY_COST = "µs per query (encode + search)";

  /** The latency chart's points as a table, to read beside the chart. */
  static String latencyTable(Leaderboard board) {
    return ParetoChart.table(
        LATENCY_ID + "-table",
        LATENCY_COST,
        quality(board),
        points(board, row -> row.facts().latencyUs()));
  }

  static String quality(Leaderboard board) {
    return board.metric() + " " + board.aggregate().label() + " ×100";
  }

  private static List<ParetoFrontier.Point> points(
      Leaderboard board, Function<LeaderboardRow, Double> cost) {
    return board.ranked().stream()
        .filter(row -> cost.apply(row) != null && cost.apply(row) > 0)
        .map(
            row ->
                new ParetoFrontier.Point(
                    row.key().id(),
                    label(row),
                    cost.apply(row),
                    row.score(board.aggregate()),
                    false))
        .toList();
  }

  static String label(LeaderboardRow row) {
    return row.key().system().name()
        + "/"
        + row.key().variant()
        + (row.key().mode().equals("retrieval") ? "" : " (" + row.key().mode() + ")");
  }
}
