package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.positions.PositionsView;
import dev.tenbin.eval.store.TaskRef;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The leaderboard as one self-contained HTML page: inline CSS and script, the data as a JSON {@code
 * <script type="application/json">} block, no network access. The tables and the Pareto charts are
 * rendered here, so the page reads without script; the script (leaderboard.js) then redraws them
 * with sorting, filters, the micro/macro switch and tie markers. The paired tests of each task
 * follow the tables as leaderboard.md has them. It marks {@code <body data-render="ok">} when done,
 * or {@code data-render-error="..."} on an error.
 */
public final class HtmlReport {
  private HtmlReport() {}

  public static String render(Leaderboard board) {
    return render(board, List.of());
  }

  /**
   * The page of {@code board}, with the position view of {@code positions} ({@link PositionsHtml})
   * when there are any.
   */
  public static String render(Leaderboard board, List<PositionsView.Row> positions) {
    StringBuilder html = new StringBuilder(64 * 1024);
    html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<title>Tenbin leaderboard – ")
        .append(Html.escape(board.metric()))
        .append("</title>\n")
        .append("<style>\n")
        .append(resource("leaderboard.css"))
        .append("</style>\n</head>\n")
        .append(
            "<body data-render=\"static\">\n<header><h1>Tenbin leaderboard</h1><p class=\"meta\">")
        .append(Html.escape(ReportText.title(board)))
        .append("</p></header>\n")
        .append(
            "<section id=\"controls\" aria-label=\"filters\"><p class=\"note\">Filters and sorting need JavaScript.</p></section>\n")
        .append("<p id=\"row-count\" class=\"note\"></p>\n")
        .append("<div class=\"table-wrap\"><table id=\"leaderboard\">");
    mainTable(html, board);
    html.append("</table></div>\n<p class=\"note\">")
        .append(Html.escape(ReportText.footnote(board, "⚠")))
        .append("</p>\n");
    String tiedForFirst = ReportText.tiedForFirst(board);
    if (tiedForFirst != null) {
      html.append("<p id=\"tied-first\">").append(Html.escape(tiedForFirst)).append("</p>\n");
    }
    if (board.correlation() != null) {
      html.append("<p id=\"correlation\">")
          .append(Html.escape(ReportText.correlation(board.correlation())))
          .append("</p>\n");
    }
    preferenceTable(html, board);
    html.append("<h2>Pareto frontiers</h2>\n");
    appendCharts(html, board);
    latencyTable(html, board);
    html.append("<h2>Per task</h2>\n<div class=\"table-wrap\"><table id=\"tasks\">");
    taskTable(html, board);
    html.append("</table></div>\n");
    for (var record : board.options().nanoFidelity()) {
      if (board.tasks().stream().anyMatch(t -> t.id().equals(record.task()))) {
        html.append("<p class=\"note nano-fidelity\">")
            .append(Html.escape(record.task() + " is a Nano-set: " + record.summary() + "."))
            .append("</p>\n");
      }
    }
    chosenMeasures(html, board);
    pairedTests(html, board);
    PositionsHtml.append(html, positions);
    html.append("<script type=\"application/json\" id=\"leaderboard-data\">")
        .append(scriptSafe(LeaderboardJson.text(board, false)))
        .append("</script>\n<script>\n")
        .append(resource("leaderboard.js"))
        .append("</script>\n");
    if (!positions.isEmpty()) {
      html.append("<script>\n").append(resource("positions.js")).append("</script>\n");
    }
    html.append("</body>\n</html>\n");
    return html.toString();
  }

  private static void mainTable(StringBuilder html, Leaderboard board) {
    mainTable(html, board, Links.NONE);
  }

  /**
   * Links a page that serves many jobs adds to the tables: an extra last column of the main table
   * (its header, and per row HTML such as links to the row's jobs), per task cell the address of
   * the stored cell (null for none), and whether the main table shows a row's system, variant and
   * mode in one column, as two short lines, to stay narrow beside its extra column.
   */
  public record Links(
      String rowHeader,
      java.util.function.Function<LeaderboardRow, String> rowHtml,
      java.util.function.BiFunction<LeaderboardRow, TaskRef, String> cellHref,
      boolean oneKeyColumn) {
    static final Links NONE = new Links(null, row -> "", (row, task) -> null, false);
  }

  /** Appends the main table ({@code <table id="leaderboard">} in its wrap) with {@code links}. */
  public static void appendMainTable(StringBuilder html, Leaderboard board, Links links) {
    html.append("<div class=\"table-wrap\"><table id=\"leaderboard\">");
    mainTable(html, board, links);
    html.append("</table></div>\n<p class=\"note\">")
        .append(Html.escape(ReportText.footnote(board, "⚠")))
        .append("</p>\n");
    String tiedForFirst = ReportText.tiedForFirst(board);
    if (tiedForFirst != null) {
      html.append("<p id=\"tied-first\">").append(Html.escape(tiedForFirst)).append("</p>\n");
    }
  }

  /** Appends the Pareto charts of quality against memory, latency and (with a price) cost. */
  public static void appendCharts(StringBuilder html, Leaderboard board) {
    html.append("<section id=\"charts\">")
        .append("<figure id=\"figure-bytes\">")
        .append(LeaderboardCharts.bytesPerVector(board))
        .append("</figure>")
        .append("<figure id=\"figure-latency\">")
        .append(LeaderboardCharts.latency(board))
        .append(LeaderboardCharts.latencyTable(board))
        .append("</figure>");
    String cost = LeaderboardCharts.cost(board);
    if (cost != null) {
      html.append("<figure id=\"figure-cost\">").append(cost).append("</figure>");
    }
    html.append("</section>\n");
  }

  /**
   * Appends the per-task table ({@code <table id="tasks">}), each score linked per {@code links}.
   */
  public static void appendTaskTable(StringBuilder html, Leaderboard board, Links links) {
    html.append("<div class=\"table-wrap\"><table id=\"tasks\">");
    taskTable(html, board, links);
    html.append("</table></div>\n");
  }

  /** Appends the paired tests of each task, as the job's page has them. */
  public static void appendPairedTests(StringBuilder html, Leaderboard board) {
    pairedTests(html, board);
  }

  /** Appends the position view ({@link PositionsHtml}); nothing without rows. */
  public static void appendPositions(StringBuilder html, List<PositionsView.Row> positions) {
    PositionsHtml.append(html, positions);
  }

  /** The leaderboard pages' style sheet. */
  public static String styles() {
    return resource("leaderboard.css");
  }

  /** {@code text} escaped for HTML element content and quoted attribute values. */
  public static String escape(String text) {
    return Html.escape(text);
  }

  /** {@code name} escaped, breakable only at separators and case steps ({@link #taskHeader}). */
  public static String breakableName(String name) {
    return breakable(name);
  }

  private static void mainTable(StringBuilder html, Leaderboard board, Links links) {
    SummaryTable table = SummaryTable.of(board, "⚠", true);
    html.append("<thead><tr>");
    for (int c = 0; c < table.header.size(); c++) {
      if (!links.oneKeyColumn() || !isKeyColumn(c)) {
        html.append("<th>").append(Html.escape(table.header.get(c))).append("</th>");
      } else if (c == SummaryTable.SYSTEM) {
        html.append("<th>system<br>variant · mode</th>");
      }
    }
    if (links.rowHeader() != null) {
      html.append("<th>").append(Html.escape(links.rowHeader())).append("</th>");
    }
    html.append("</tr></thead><tbody>");
    List<LeaderboardRow> rows = board.rows();
    for (int r = 0; r < rows.size(); r++) {
      LeaderboardRow row = rows.get(r);
      html.append("<tr class=\"row")
          .append(row.complete() ? "" : " unranked")
          .append("\" data-row=\"")
          .append(Html.escape(row.key().id()))
          .append("\" data-rank=\"")
          .append(row.rank() == null ? "" : row.rank())
          .append("\">");
      List<String> cells = table.rows.get(r);
      for (int c = 0; c < cells.size(); c++) {
        if (!links.oneKeyColumn() || !isKeyColumn(c)) {
          html.append(table.numeric.get(c) ? "<td class=\"num\">" : "<td>")
              .append(Html.escape(cells.get(c)))
              .append("</td>");
        } else if (c == SummaryTable.SYSTEM) {
          html.append("<td class=\"row-key\" title=\"")
              .append(Html.escape(row.key().id()))
              .append("\">")
              .append(breakable(row.key().system().name()))
              .append("<br><span class=\"key-detail\">")
              .append(breakable(row.key().variant()))
              .append(" · ")
              .append(breakable(row.key().mode()))
              .append("</span></td>");
        }
      }
      if (links.rowHeader() != null) {
        html.append("<td>").append(links.rowHtml().apply(row)).append("</td>");
      }
      html.append("</tr>");
    }
    html.append("</tbody>");
  }

  /** Whether column {@code c} of the summary table is the system's, the variant's or the mode's. */
  private static boolean isKeyColumn(int c) {
    return c >= SummaryTable.SYSTEM && c <= SummaryTable.MODE;
  }

  /** The Bradley–Terry view of per-query wins ({@link PreferenceTable}), when there is one. */
  private static void preferenceTable(StringBuilder html, Leaderboard board) {
    PreferenceTable preference = PreferenceTable.of(board);
    if (preference.rows.isEmpty()) {
      return;
    }
    html.append("<h2>")
        .append(Html.escape(PreferenceTable.TITLE))
        .append("</h2>\n<div class=\"table-wrap\"><table id=\"preference\"><thead><tr>");
    preference.header.forEach(h -> html.append("<th>").append(Html.escape(h)).append("</th>"));
    html.append("</tr></thead><tbody>");
    for (List<String> row : preference.rows) {
      html.append("<tr>");
      for (int c = 0; c < row.size(); c++) {
        html.append(preference.numeric.get(c) ? "<td class=\"num\">" : "<td>")
            .append(Html.escape(row.get(c)))
            .append("</td>");
      }
      html.append("</tr>");
    }
    html.append("</tbody></table></div>\n<p class=\"note\">")
        .append(Html.escape(preference.footnote))
        .append("</p>\n");
  }

  /**
   * The query latency of the rows that measured it, as leaderboard.md has it ({@link
   * LatencyTable}).
   */
  private static void latencyTable(StringBuilder html, Leaderboard board) {
    LatencyTable latency = LatencyTable.of(board);
    if (latency.rows.isEmpty()) {
      return;
    }
    html.append(
        "<h2>Query latency</h2>\n<div class=\"table-wrap\"><table id=\"latency\"><thead><tr>");
    latency.header.forEach(h -> html.append("<th>").append(Html.escape(h)).append("</th>"));
    html.append("</tr></thead><tbody>");
    for (List<String> row : latency.rows) {
      html.append("<tr>");
      for (int c = 0; c < row.size(); c++) {
        html.append(latency.numeric.get(c) ? "<td class=\"num\">" : "<td>")
            .append(Html.escape(row.get(c)))
            .append("</td>");
      }
      html.append("</tr>");
    }
    html.append("</tbody></table></div>\n<p class=\"note\">")
        .append(Html.escape(latency.footnote))
        .append("</p>\n");
  }

  private static void taskTable(StringBuilder html, Leaderboard board) {
    taskTable(html, board, Links.NONE);
  }

  private static void taskTable(StringBuilder html, Leaderboard board, Links links) {
    TieMarkers ties = new TieMarkers(board);
    html.append("<thead><tr><th>System</th><th>Variant</th><th>Mode</th>");
    board.tasks().forEach(t -> html.append(taskHeader(t)));
    html.append("</tr></thead><tbody>");
    for (LeaderboardRow row : board.rows()) {
      html.append("<tr class=\"task-row\" data-row=\"")
          .append(Html.escape(row.key().id()))
          .append("\">");
      rowKeyCells(html, row);
      for (TaskRef task : board.tasks()) {
        String tie = ties.task(row, task);
        String href = links.cellHref().apply(row, task);
        html.append("<td class=\"num\">")
            .append(href == null ? "" : "<a href=\"" + Html.escape(href) + "\">")
            .append(Numbers.score(row.scores().get(task)))
            .append(href == null ? "" : "</a>");
        if (tie != null) {
          html.append("<span class=\"tie\" title=\"")
              .append(Html.escape(tie))
              .append("\">⚠</span>");
        }
        html.append("</td>");
      }
      html.append("</tr>");
    }
    html.append("</tbody>");
  }

  /**
   * A task's column header: its name, which may wrap only after a separator ({@code - _ / : .}) or
   * between a lower-case letter and a capital (a {@code <wbr>} there), never inside a word; the
   * title names the task with its dataset, language and domain. leaderboard.js ({@code taskHeader})
   * writes the same.
   */
  static String taskHeader(TaskRef task) {
    return "<th class=\"task-name\" title=\""
        + Html.escape(
            task.id()
                + " ("
                + task.dataset()
                + ", "
                + task.language()
                + (task.domain() == null || task.domain().isEmpty() ? "" : ", " + task.domain())
                + ")")
        + "\">"
        + breakable(task.id())
        + "</th>";
  }

  /** {@code name} escaped, with {@code <wbr>} after separators and at lower-to-upper case steps. */
  static String breakable(String name) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (i > 0
          && Character.isUpperCase(c)
          && Character.isLowerCase(name.charAt(i - 1))
          && out.length() > 0) {
        out.append("<wbr>");
      }
      out.append(Html.escape(String.valueOf(c)));
      if ("-_/:.".indexOf(c) >= 0 && i < name.length() - 1) {
        out.append("<wbr>");
      }
    }
    return out.toString();
  }

  /** A row's system, variant and mode cells. */
  private static void rowKeyCells(StringBuilder html, LeaderboardRow row) {
    html.append("<td>")
        .append(Html.escape(row.key().system().name()))
        .append("</td><td>")
        .append(Html.escape(row.key().variant()))
        .append("</td><td>")
        .append(Html.escape(row.key().mode()))
        .append("</td>");
  }

  /** The measures the job chose, one table per measure (see {@link MarkdownReport}). */
  private static void chosenMeasures(StringBuilder html, Leaderboard board) {
    var chosen = board.options().measures();
    if (chosen == null) {
      return;
    }
    html.append("<h2>Chosen measures</h2>\n<p class=\"note\">")
        .append(
            Html.escape(
                "trec_eval -c -m "
                    + String.join(" -m ", chosen.specs())
                    + " on each cell's stored ranking and its job's judgments; in parentheses the"
                    + " tie-aware expectation where tied scores could change the value"
                    + (chosen.unmeasured() > 0
                        ? "; " + chosen.unmeasured() + " cell(s) without kept judgments: –"
                        : "")
                    + "."))
        .append("</p>\n");
    for (String name : chosen.names()) {
      html.append("<h3>")
          .append(Html.escape(name))
          .append("</h3>\n<div class=\"table-wrap\"><table class=\"measure\">")
          .append("<thead><tr><th>System</th><th>Variant</th><th>Mode</th>");
      board.tasks().forEach(t -> html.append(taskHeader(t)));
      html.append("</tr></thead><tbody>");
      for (LeaderboardRow row : board.rows()) {
        var byTask = chosen.values().getOrDefault(row.key(), java.util.Map.of());
        html.append("<tr>");
        rowKeyCells(html, row);
        for (TaskRef task : board.tasks()) {
          var value = byTask.getOrDefault(task, java.util.Map.of()).get(name);
          html.append("<td class=\"num\">")
              .append(Html.escape(value == null ? Numbers.ABSENT : Numbers.measure(value)))
              .append("</td>");
        }
        html.append("</tr>");
      }
      html.append("</tbody></table></div>\n");
    }
  }

  /**
   * The paired tests of each task, as leaderboard.md has them ({@link PairedTables}); one line
   * instead when no task has a pair.
   */
  private static void pairedTests(StringBuilder html, Leaderboard board) {
    if (board.paired() == null) {
      return;
    }
    if (!board.paired().hasPairs()) {
      html.append("<p class=\"note\" id=\"paired-tests\">")
          .append(Html.escape(PairedTables.noPairs(board.paired())))
          .append("</p>\n");
      return;
    }
    html.append("<h2 id=\"paired-tests\">Paired tests per task</h2>\n<p class=\"note\">")
        .append(Html.escape(PairedTables.explanation(board.paired())))
        .append("</p>\n");
    for (PairedTables.Task task : PairedTables.of(board)) {
      html.append("<h3>").append(Html.escape(task.title())).append("</h3>\n");
      table(html, task.rows());
      if (!task.pairs().rows().isEmpty()) {
        table(html, task.pairs());
      }
      if (!task.note().isEmpty()) {
        html.append("<p class=\"note\">").append(Html.escape(task.note())).append("</p>\n");
      }
    }
  }

  private static void table(StringBuilder html, PairedTables.Table table) {
    html.append("<div class=\"table-wrap\"><table class=\"paired\"><thead><tr>");
    table.header().forEach(h -> html.append("<th>").append(Html.escape(h)).append("</th>"));
    html.append("</tr></thead><tbody>");
    for (List<String> row : table.rows()) {
      html.append("<tr>");
      for (int c = 0; c < row.size(); c++) {
        html.append(table.numeric().get(c) ? "<td class=\"num\">" : "<td>")
            .append(Html.escape(row.get(c)))
            .append("</td>");
      }
      html.append("</tr>");
    }
    html.append("</tbody></table></div>\n");
  }

  /** JSON made safe inside a script element: no "</script", no HTML comment openers. */
  static String scriptSafe(String json) {
    return json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
  }

  private static String resource(String name) {
    try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(
            "missing resource " + name + " next to " + HtmlReport.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read resource " + name, e);
    }
  }
}
