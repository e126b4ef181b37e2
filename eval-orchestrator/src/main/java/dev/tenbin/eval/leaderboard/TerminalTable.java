package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.OfficialCorrelation;
import java.util.List;
import java.util.Locale;

/** The leaderboard as a fixed-width text table for a terminal. */
public final class TerminalTable {
  /** Appended to an aggregate whose tie range exceeds the gap to a neighbouring row. */
  static final String TIE_MARK = "~";

  private TerminalTable() {}

  public static String render(Leaderboard board) {
    SummaryTable table = SummaryTable.of(board, TIE_MARK, false);
    int[] widths = new int[table.header.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = table.header.get(c).length();
      for (List<String> row : table.rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    out.append(ReportText.title(board)).append('\n');
    line(out, table.header, widths, table.numeric);
    line(
        out,
        table.header.stream().map(h -> "-".repeat(h.length())).toList(),
        widths,
        table.numeric);
    table.rows.forEach(row -> line(out, row, widths, table.numeric));
    out.append(ReportText.footnote(board, TIE_MARK)).append('\n');
    OfficialCorrelation correlation = board.correlation();
    if (correlation != null) {
      out.append(ReportText.correlation(correlation)).append('\n');
    }
    return out.toString();
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
