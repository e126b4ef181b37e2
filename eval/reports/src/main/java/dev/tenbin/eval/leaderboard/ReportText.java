package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.OfficialCorrelation;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.scoring.stats.Interval;
import java.util.Locale;

/** Sentences shared by the reports: the title line, the footnote and the correlation summary. */
final class ReportText {
  private ReportText() {}

  static String title(Leaderboard board) {
    return String.format(
        Locale.ROOT,
        "%s ×100, ranked by %s; scope: %s; %s in %s; %d of %s ranked",
        board.metric(),
        board.aggregate().label(),
        board.options().scope().describe(),
        count(board.tasks().size(), "task"),
        count(board.benchmarks().size(), "benchmark"),
        board.ranked().size(),
        count(board.rows().size(), "row"));
  }

  /** "1 task", "2 tasks": a count with its noun, singular for one. */
  static String count(int n, String noun) {
    return n + " " + (n == 1 ? noun : noun + "s");
  }

  static String footnote(Leaderboard board, String tieMark) {
    String ranks = rankNote(board);
    return footnote(board, tieMark, intervalNote(board) + (ranks.isEmpty() ? "" : " " + ranks));
  }

  /**
   * The terminal table's footnote: it has no interval, group or swap column, so it says where they
   * are instead of how they were made.
   */
  static String terminalFootnote(Leaderboard board, String tieMark) {
    return footnote(
        board,
        tieMark,
        board.tasks().isEmpty()
            ? ""
            : "Intervals, statistical groups, swap probabilities and rank intervals: the Markdown,"
                + " HTML and JSON reports (leaderboard.md, tenbin report --format markdown).");
  }

  private static String footnote(Leaderboard board, String tieMark, String statistics) {
    return "Unranked rows (–) lack tasks of the scope (tasks k/n). Δ base: "
        + board.aggregate().label()
        + " difference to the same system's base variant on shared tasks. "
        + tieMark
        + ": the tie range exceeds the gap to a neighbouring row. "
        + statistics
        + costNote(board);
  }

  /** How the cost columns are computed, or nothing without a price. */
  static String costNote(Leaderboard board) {
    var price = board.options().price();
    if (price == null) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        " Cost (at %s per CPU hour, %s per GPU hour): 1,000 single queries at the measured"
            + " latency (encode + search), and 1,000,000 documents at the measured indexing time"
            + " (encode + index + what the variant's index builds: quantized codes, graph; cells"
            + " stored before that was timed count the shared encode + index only), one at a time"
            + " on the machine that ran the cell.",
        Numbers.cost(price.cpuHour()),
        Numbers.cost(price.gpuHour()));
  }

  /**
   * Where the intervals come from, how groups are formed, or why there are none: a scope of fewer
   * than {@value Leaderboard#MIN_TASKS_FOR_TASK_BOOTSTRAP} tasks hides the task bootstrap.
   */
  static String intervalNote(Leaderboard board) {
    int tasks = board.tasks().size();
    String groups =
        " group: rows whose interval overlaps the leader's share its letter; the best row outside"
            + " every group so far leads the next.";
    return switch (board.intervalSource()) {
      case TASKS ->
          "95% CI and P(swap next): bootstrap over tasks ("
              + board.options().bootstrapDraws()
              + " draws, seed "
              + board.options().seed()
              + ");"
              + groups;
      case QUERIES ->
          (tasks == 1
                  ? String.format(
                      Locale.ROOT,
                      "95%% CI: bootstrap over the queries of the task (%,d draws, seed %d); P(swap"
                          + " next): bootstrap over the same queries for every row (%,d draws, seed"
                          + " %d);",
                      QueryBootstrap.DRAWS,
                      QueryBootstrap.SEED,
                      board.options().bootstrapDraws(),
                      board.options().seed())
                  : String.format(
                      Locale.ROOT,
                      "95%% CI and P(swap next): bootstrap over the queries of each of the %d tasks,"
                          + " the same draw for every row (%,d draws, seed %d; a bootstrap over tasks"
                          + " needs %d tasks or more);",
                      tasks,
                      board.options().bootstrapDraws(),
                      board.options().seed(),
                      Leaderboard.MIN_TASKS_FOR_TASK_BOOTSTRAP))
              + groups;
      case NONE ->
          tasks == 0
              ? ""
              : String.format(
                  Locale.ROOT,
                  "95%% CI, groups, P(swap next) and rank 95%% are hidden: %d tasks are too few"
                      + " for a bootstrap over tasks (%d or more are needed) and a bootstrap over"
                      + " queries needs every ranked row's per-query values (and --bootstrap above"
                      + " 0).",
                  tasks,
                  Leaderboard.MIN_TASKS_FOR_TASK_BOOTSTRAP);
    };
  }

  /**
   * What the rank interval and tied-for-first columns show, or nothing when no row has a rank
   * interval.
   */
  static String rankNote(Leaderboard board) {
    if (board.tiedForFirst() == null) {
      return "";
    }
    return "rank 95%: central 95% of the row's rank over the draws P(swap next) uses, the ranked"
        + " rows ranked by "
        + board.aggregate().label()
        + " in each draw (ties share the best rank); "
        + SummaryTable.TIED_FOR_FIRST
        + " tied for first: rank 95% includes 1 (ranked first in at least 2.5% of the draws).";
  }

  /**
   * The one-line summary of the rows not separable from the top ("Tied for first (rank 95% includes
   * 1): a, b."), or null when no row has a rank interval.
   */
  static String tiedForFirst(Leaderboard board) {
    var tied = board.tiedForFirst();
    if (tied == null) {
      return null;
    }
    return "Tied for first (rank 95% includes 1): "
        + String.join(", ", tied.stream().map(row -> row.key().id()).toList())
        + ".";
  }

  static String correlation(OfficialCorrelation correlation) {
    return String.format(
        Locale.ROOT,
        "Agreement with %s (%s) over %s: Spearman %s %s, Pearson %s %s%s",
        correlation.official().source(),
        correlation.official().column(),
        count(correlation.matches().size(), "model"),
        value(correlation.spearman()),
        interval(correlation.spearmanInterval()),
        value(correlation.pearson()),
        interval(correlation.pearsonInterval()),
        correlation.unmatched().isEmpty()
            ? ""
            : "; not ours: " + String.join(", ", correlation.unmatched()));
  }

  private static String value(double value) {
    return Double.isFinite(value) ? String.format(Locale.ROOT, "%.3f", value) : "n/a";
  }

  private static String interval(Interval interval) {
    return interval == null
        ? "(no interval)"
        : String.format(Locale.ROOT, "(95%% CI %.3f–%.3f)", interval.low(), interval.high());
  }
}
