package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Aggregate;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.job.Price;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The leaderboard's main table as plain-text cells, shared by the terminal and Markdown reports:
 * rank, system, variant, mode, micro, macro, one column per benchmark, delta vs base, tasks k/n,
 * and optionally the bootstrap interval (the leaderboard's {@linkplain Leaderboard#intervalSource()
 * source}), statistically tied group, swap probability, rank interval (with {@value
 * #TIED_FOR_FIRST} when it includes 1) and Borda score; with a {@link Price}, the cost of 1,000
 * queries and of indexing 1,000,000 documents.
 */
final class SummaryTable {
  /** Marks, beside its rank interval, a row tied for first (its rank interval includes 1). */
  static final String TIED_FOR_FIRST = "★";

  /** The column of the system; the variant's and the mode's follow it. */
  static final int SYSTEM = 1;

  /** The column of the mode, the last of a row's key. */
  static final int MODE = 3;

  final List<String> header = new ArrayList<>();
  final List<List<String>> rows = new ArrayList<>();

  /** Columns holding numbers (right-aligned). */
  final List<Boolean> numeric = new ArrayList<>();

  private SummaryTable() {}

  /**
   * Builds the table.
   *
   * @param tieMark appended to the chosen aggregate when its tie range exceeds the gap to a
   *     neighbour
   * @param extended whether to add the interval, group, swap, rank interval and Borda columns
   */
  static SummaryTable of(Leaderboard board, String tieMark, boolean extended) {
    SummaryTable table = new SummaryTable();
    Aggregate chosen = board.aggregate();
    table
        .column("rank", true)
        .column("system", false)
        .column("variant", false)
        .column("mode", false)
        .column("micro", true)
        .column("macro", true);
    board.benchmarks().forEach(b -> table.column(b, true));
    table.column("Δ base", true);
    if (extended) {
      table
          .column(
              board.intervalSource() == Leaderboard.IntervalSource.QUERIES
                  ? "95% CI (queries)"
                  : "95% CI (" + chosen.label() + ")",
              true)
          .column("group", false)
          .column("P(swap next)", true)
          .column("rank 95%", true)
          .column("Borda", true);
    }
    Price price = board.options().price();
    if (price != null) {
      table.column("cost/1K queries", true).column("cost/1M docs", true);
    }
    table.column("tasks", true);
    TieMarkers ties = new TieMarkers(board);
    for (LeaderboardRow row : board.rows()) {
      List<String> cells = new ArrayList<>();
      cells.add(row.rank() == null ? "–" : String.valueOf(row.rank()));
      cells.add(row.key().system().name());
      cells.add(row.key().variant());
      cells.add(row.key().mode());
      String mark = ties.aggregate(row) == null ? "" : tieMark;
      cells.add(Numbers.score(row.micro()) + (chosen == Aggregate.MICRO ? mark : ""));
      cells.add(Numbers.score(row.macro()) + (chosen == Aggregate.MACRO ? mark : ""));
      board.benchmarks().forEach(b -> cells.add(Numbers.score(row.benchmarks().get(b))));
      cells.add(row.delta() == null ? Numbers.ABSENT : Numbers.delta(row.delta().of(chosen)));
      if (extended) {
        Interval interval = board.interval(row);
        cells.add(
            interval == null
                ? Numbers.ABSENT
                : String.format(Locale.ROOT, "%.2f–%.2f", interval.low(), interval.high()));
        cells.add(row.statisticalGroup() == null ? Numbers.ABSENT : row.statisticalGroup());
        cells.add(Numbers.probability(row.swapWithNext()));
        cells.add(
            row.rankInterval() == null
                ? Numbers.ABSENT
                : row.rankInterval().label() + (row.tiedForFirst() ? " " + TIED_FOR_FIRST : ""));
        cells.add(
            row.borda() == null ? Numbers.ABSENT : String.format(Locale.ROOT, "%.1f", row.borda()));
      }
      if (price != null) {
        cells.add(Numbers.cost(row.facts().costPer1kQueries(price)));
        cells.add(Numbers.cost(row.facts().costPer1mDocuments(price)));
      }
      cells.add(row.covered() + "/" + row.total());
      table.rows.add(cells);
    }
    return table;
  }

  private SummaryTable column(String name, boolean isNumeric) {
    header.add(name);
    numeric.add(isNumeric);
    return this;
  }
}
