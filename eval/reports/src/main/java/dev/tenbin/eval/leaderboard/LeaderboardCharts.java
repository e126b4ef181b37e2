package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import java.util.List;
import java.util.function.Function;

/**
 * The Pareto charts of a leaderboard's ranked rows: quality against bytes per document and latency,
 * and with a {@link dev.tenbin.eval.job.Price} against the cost of 1,000 queries.
 */
final class LeaderboardCharts {
  static final String BYTES_ID = "chart-bytes";
  static final String LATENCY_ID = "chart-latency";
  static final String COST_ID = "chart-cost";

  private LeaderboardCharts() {}

  /** The memory chart and its key ({@link ParetoChart#key}). */
  static String bytesPerVector(Leaderboard board) {
    var points = points(board, row -> row.facts().bytesPerVector());
    return ParetoChart.svg(
            BYTES_ID, "Quality against memory", "stored bytes per document", quality(board), points)
        + ParetoChart.key(BYTES_ID, points);
  }

  /** The latency chart and its key. */
  static String latency(Leaderboard board) {
    var points = points(board, row -> row.facts().latencyUs());
    return ParetoChart.svg(
            LATENCY_ID, "Quality against query latency", LATENCY_COST, quality(board), points)
        + ParetoChart.key(LATENCY_ID, points);
  }

  private static final String LATENCY_COST = "µs per query (encode + search)";

  /** Quality against the priced cost of 1,000 queries; null without a price. */
  static String cost(Leaderboard board) {
    var price = board.options().price();
    if (price == null) {
      return null;
    }
    var points = points(board, row -> row.facts().costPer1kQueries(price));
    return ParetoChart.svg(
            COST_ID,
            "Quality against cost",
            "cost per 1,000 queries (cpu_hour "
                + Numbers.cost(price.cpuHour())
                + ", gpu_hour "
                + Numbers.cost(price.gpuHour())
                + ")",
            quality(board),
            points)
        + ParetoChart.key(COST_ID, points);
  }

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
