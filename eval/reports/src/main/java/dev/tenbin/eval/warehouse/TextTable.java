package dev.tenbin.eval.warehouse;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Renders a query result as a small aligned text table, at most {@code maxRows} rows. */
public final class TextTable {
  private TextTable() {}

  /**
   * The table of {@code rows}: a header, a rule, the rows, and a line saying how many were left
   * out.
   */
  public static String render(ResultSet rows, int maxRows) throws SQLException {
    ResultSetMetaData meta = rows.getMetaData();
    int columns = meta.getColumnCount();
    List<String[]> lines = new ArrayList<>();
    String[] header = new String[columns];
    for (int c = 0; c < columns; c++) {
      header[c] = meta.getColumnLabel(c + 1);
    }
    lines.add(header);
    long total = 0;
    while (rows.next()) {
      total++;
      if (total <= maxRows) {
        String[] line = new String[columns];
        for (int c = 0; c < columns; c++) {
          Object value = rows.getObject(c + 1);
          line[c] = value == null ? "NULL" : value.toString();
        }
        lines.add(line);
      }
    }
    int[] widths = new int[columns];
    for (String[] line : lines) {
      for (int c = 0; c < columns; c++) {
        widths[c] = Math.max(widths[c], line[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      appendLine(out, lines.get(i), widths);
      if (i == 0) {
        String[] rule = new String[columns];
        for (int c = 0; c < columns; c++) {
          rule[c] = "-".repeat(widths[c]);
        }
        appendLine(out, rule, widths);
      }
    }
    if (total > maxRows) {
      out.append("(")
          .append(total - maxRows)
          .append(" more rows; ")
          .append(total)
          .append(" in all)\n");
    } else {
      out.append("(").append(total).append(total == 1 ? " row)\n" : " rows)\n");
    }
    return out.toString();
  }

  private static void appendLine(StringBuilder out, String[] cells, int[] widths) {
    for (int c = 0; c < cells.length; c++) {
      if (c > 0) {
        out.append("  ");
      }
      out.append(cells[c]);
      if (c < cells.length - 1) {
        out.append(" ".repeat(widths[c] - cells[c].length()));
      }
    }
    out.append('\n');
  }
}
