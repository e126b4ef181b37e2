package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.OfficialCorrelation;
import java.util.List;
import java.util.Locale;

/**
 * The leaderboard as fixed-width text tables for a terminal: the ranking, then the paired tests.
 */
public final class TerminalTable {
  /** Appended to an aggregate whose tie range exceeds the gap to a neighbouring row. */
  static final String TIE_MARK = "~";

  private TerminalTable() {}

  /** The ranking with its footnote and the paired tests of each task ({@code tenbin report}). */
  public static String render(Leaderboard board) {
    StringBuilder out = new StringBuilder(summary(board));
    if (board.paired() != null && !board.paired().hasPairs()) {
      out.append('\n').append(PairedTables.noPairs(board.paired())).append('\n');
    } else if (board.paired() != null) {
      out.append('\n').append(PairedTables.explanation(board.paired())).append('\n');
      for (PairedTables.Task task : PairedTables.of(board)) {
        out.append('\n').append(task.title()).append('\n');
        table(out, task.rows().header(), task.rows().numeric(), task.rows().rows());
        if (!task.pairs().rows().isEmpty()) {
          out.append('\n');
          table(out, task.pairs().header(), task.pairs().numeric(), task.pairs().rows());
        }
        if (!task.note().isEmpty()) {
          out.append(task.note()).append('\n');
        }
      }
    }
    return out.toString();
  }

  /**
   * The ranking with its footnote and the correlation line, without the paired tests: what a job
   * prints when it ends (its leaderboard files and {@code tenbin report} hold the rest).
   */
  public static String summary(Leaderboard board) {
    SummaryTable table = SummaryTable.of(board, TIE_MARK, false);
    StringBuilder out = new StringBuilder();
    out.append(ReportText.title(board)).append('\n');
    table(out, table.header, table.numeric, table.rows);
    out.append(ReportText.terminalFootnote(board, TIE_MARK)).append('\n');
    OfficialCorrelation correlation = board.correlation();
    if (correlation != null) {
      out.append(ReportText.correlation(correlation)).append('\n');
    }
    return out.toString();
  }

  private static void table(
      StringBuilder out, List<String> header, List<Boolean> numeric, List<List<String>> rows) {
    int[] widths = new int[header.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = header.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    line(out, header, widths, numeric);
    line(out, header.stream().map(h -> "-".repeat(h.length())).toList(), widths, numeric);
    rows.forEach(row -> line(out, row, widths, numeric));
  }

  private static void line(
      StringBuilder out, List<String> cells, int[] widths, List<Boolean> numeric) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      String format = numeric.get(c) ? "%" + widths[c] + "s" : "%-" + widths[c] + "s";
      line.append(c == 0 ? "" : "  ").append(String.format(Locale.ROOT, format, cells.get(c)));
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }
}
