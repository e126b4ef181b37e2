package dev.tenbin.eval.browse;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.aggregate.Aggregate;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.aggregate.RowKey;
import dev.tenbin.eval.job.JobJudgments;
import dev.tenbin.eval.leaderboard.HtmlReport;
import dev.tenbin.eval.positions.PositionsView;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.eval.warehouse.Warehouse;
import dev.tenbin.scoring.metrics.Qrels;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Two rows of the stored results side by side ({@code a=ROW&b=ROW[&task=...]}, a row being
 * "system/variant/mode" as the leaderboard names it): on the tasks both have, the paired tests and
 * minimum detectable effect of {@link dev.tenbin.eval.aggregate.PairedComparisons} (the two rows as
 * a leaderboard of their own, micro average, Holm's correction over the tasks), the queries whose
 * metric moved most between them with the judged documents (when the job kept its judgments) and
 * both stored top 10s from the warehouse, and the position profiles when the cells carry position
 * analyses.
 */
final class ComparePage {
  static final Set<String> PARAMETERS = Set.of("a", "b", "task");

  /** Queries listed per task. */
  static final int MOVED_QUERIES = 10;

  /** Ranks shown of each stored ranking. */
  static final int TOP = 10;

  private ComparePage() {}

  /** One query's metric under both rows, × 100; {@code delta} = a − b. */
  record QueryDifference(String queryId, double a, double b, double delta) {}

  /**
   * The queries both maps hold, by |Δ| (a − b) descending, then query id ascending (so equal moves
   * list in a fixed order); queries whose value did not move are left out.
   */
  static List<QueryDifference> differences(Map<String, Double> a, Map<String, Double> b) {
    List<QueryDifference> moved = new ArrayList<>();
    for (Map.Entry<String, Double> entry : a.entrySet()) {
      Double other = b.get(entry.getKey());
      if (other == null || entry.getValue() == null) {
        continue;
      }
      double delta = 100 * (entry.getValue() - other);
      if (delta != 0) {
        moved.add(new QueryDifference(entry.getKey(), 100 * entry.getValue(), 100 * other, delta));
      }
    }
    moved.sort(
        Comparator.comparingDouble((QueryDifference d) -> -Math.abs(d.delta()))
            .thenComparing(QueryDifference::queryId));
    return moved;
  }

  /** The options of the comparison: the job page's paired tests, micro average. */
  static LeaderboardOptions options() {
    return LeaderboardOptions.defaults().withAggregate(Aggregate.MICRO);
  }

  /** The two rows' cells on the tasks both have (and {@code task} names, if any). */
  record Selection(RowKey a, RowKey b, List<CellRecord> cells, List<String> onlyOne) {}

  static Selection select(Catalog catalog, Parameters parameters) {
    Map<String, RowKey> rows = new LinkedHashMap<>();
    for (CellRecord cell : catalog.cells()) {
      RowKey key = RowKey.of(cell.key());
      rows.putIfAbsent(key.id(), key);
    }
    RowKey a = row(parameters, "a", rows);
    RowKey b = row(parameters, "b", rows);
    if (a.equals(b)) {
      throw new InvalidInputException("b", "b must name another row than a (" + a.id() + ")");
    }
    List<CellRecord> ofBoth =
        catalog.cells().stream()
            .filter(c -> RowKey.of(c.key()).equals(a) || RowKey.of(c.key()).equals(b))
            .toList();
    List<String> tasks = parameters.among("task", taskNames(ofBoth));
    List<CellRecord> chosen =
        ofBoth.stream()
            .filter(
                c ->
                    tasks.isEmpty()
                        || tasks.contains(c.key().task().task())
                        || tasks.contains(c.key().task().id()))
            .toList();
    Set<String> ofA = new TreeSet<>();
    Set<String> ofB = new TreeSet<>();
    for (CellRecord cell : chosen) {
      (RowKey.of(cell.key()).equals(a) ? ofA : ofB).add(cell.key().task().id());
    }
    List<String> onlyOne = new ArrayList<>();
    Set<String> all = new TreeSet<>(ofA);
    all.addAll(ofB);
    for (String task : all) {
      if (!(ofA.contains(task) && ofB.contains(task))) {
        onlyOne.add(task);
      }
    }
    List<CellRecord> shared =
        chosen.stream().filter(c -> !onlyOne.contains(c.key().task().id())).toList();
    return new Selection(a, b, shared, onlyOne);
  }

  private static Set<String> taskNames(List<CellRecord> cells) {
    Set<String> names = Filters.known(cells, k -> k.task().task());
    names.addAll(Filters.known(cells, k -> k.task().id()));
    return names;
  }

  private static RowKey row(Parameters parameters, String name, Map<String, RowKey> rows) {
    String id = parameters.single(name);
    if (id == null) {
      throw new InvalidInputException(
          name, name + " is required: a row such as bm25/base/retrieval");
    }
    RowKey key = rows.get(id);
    if (key == null) {
      parameters.among(name, rows.keySet()); // throws, naming the known rows
    }
    return key;
  }

  static String render(
      Catalog catalog,
      Path warehouseFile,
      Map<String, List<String>> query,
      SiteNavigation navigation) {
    Parameters parameters = Parameters.of(query, PARAMETERS);
    Selection selection = select(catalog, parameters);
    String title = "Compare " + selection.a().id() + " and " + selection.b().id();
    StringBuilder html = new StringBuilder(64 * 1024);
    html.append("<header><h1>")
        .append(Pages.escape(title))
        .append("</h1><p class=\"meta\"><a href=\"")
        .append(Pages.LEADERBOARD_PATH)
        .append("\">all-jobs leaderboard</a></p></header>\n");
    if (!selection.onlyOne().isEmpty()) {
      html.append("<p class=\"note\" id=\"only-one\">")
          .append(
              Pages.escape(
                  "Left out, stored for one of the two only: "
                      + String.join(", ", selection.onlyOne())
                      + "."))
          .append("</p>\n");
    }
    if (selection.cells().isEmpty()) {
      html.append("<p id=\"no-rows\">The two rows share no task.</p>\n");
      return Pages.document(title, navigation, html.toString());
    }
    Leaderboard board = Leaderboard.of(selection.cells(), options());
    summary(html, catalog, board, selection);
    HtmlReport.appendPairedTests(html, board);
    html.append("<h2 id=\"moved-queries\">Queries that moved most</h2>\n<p class=\"note\">")
        .append(
            Pages.escape(
                String.format(
                    Locale.ROOT,
                    "Per task the %d queries whose %s changed most, Δ = A − B ×100 (by |Δ|, then"
                        + " query id); judged documents (grade) when the job kept its judgments,"
                        + " and each row's stored top %d (judged documents in bold, with their grade).",
                    MOVED_QUERIES,
                    board.metric(),
                    TOP)))
        .append("</p>\n");
    try (Connection connection = Warehouse.openReadOnly(warehouseFile)) {
      for (TaskRef task : board.tasks()) {
        CellRecord cellA = board.matrix().cell(selection.a(), task).orElseThrow();
        CellRecord cellB = board.matrix().cell(selection.b(), task).orElseThrow();
        movedQueries(html, connection, catalog, board.metric(), task, cellA, cellB);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot read warehouse " + warehouseFile + ": " + e.getMessage(), e);
    }
    List<PositionsView.Row> positions = PositionsView.rows(selection.cells(), null);
    if (!positions.isEmpty()) {
      HtmlReport.appendPositions(html, positions);
    }
    return Pages.document(title, navigation, html.toString());
  }

  private static void summary(
      StringBuilder html, Catalog catalog, Leaderboard board, Selection selection) {
    html.append("<div class=\"table-wrap\"><table id=\"compare-summary\"><thead><tr>")
        .append("<th>Row</th><th>Tasks</th><th>micro</th><th>macro</th><th>Jobs</th>")
        .append("</tr></thead><tbody>");
    for (RowKey key : List.of(selection.a(), selection.b())) {
      LeaderboardRow row =
          board.rows().stream().filter(r -> r.key().equals(key)).findFirst().orElseThrow();
      html.append("<tr><td>")
          .append(key.equals(selection.a()) ? "A " : "B ")
          .append(Pages.escape(key.id()))
          .append("</td><td class=\"num\">")
          .append(row.covered())
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%.2f", row.micro()))
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%.2f", row.macro()))
          .append("</td><td>");
      for (String job : LeaderboardPage.jobsOf(catalog, board, row)) {
        html.append("<a href=\"")
            .append(Pages.escape(Pages.jobHref(job)))
            .append("\">")
            .append(HtmlReport.breakableName(job))
            .append("</a> ");
      }
      html.append("</td></tr>");
    }
    html.append("</tbody></table></div>\n");
  }

  private static void movedQueries(
      StringBuilder html,
      Connection connection,
      Catalog catalog,
      String metric,
      TaskRef task,
      CellRecord cellA,
      CellRecord cellB)
      throws SQLException {
    List<QueryDifference> moved =
        differences(
            perQuery(connection, cellA.fingerprint(), metric),
            perQuery(connection, cellB.fingerprint(), metric));
    html.append("<h3>").append(Pages.escape(task.id())).append("</h3>\n");
    if (moved.isEmpty()) {
      html.append("<p class=\"note\">No query's ")
          .append(Pages.escape(metric))
          .append(" differs (or the cells stored no per-query values).</p>\n");
      return;
    }
    Optional<Qrels> qrels = judgments(catalog, cellA);
    html.append("<div class=\"table-wrap\"><table class=\"moved\" data-task=\"")
        .append(Pages.escape(task.id()))
        .append("\"><thead><tr><th>Query</th><th>Δ</th><th>A</th><th>B</th><th>Judged</th>")
        .append("<th>A top ")
        .append(TOP)
        .append("</th><th>B top ")
        .append(TOP)
        .append("</th></tr></thead><tbody>");
    for (QueryDifference difference : moved.subList(0, Math.min(MOVED_QUERIES, moved.size()))) {
      Map<String, Integer> judged =
          qrels.map(q -> q.judgments(difference.queryId())).orElse(Map.of());
      html.append("<tr class=\"moved-query\" data-query=\"")
          .append(Pages.escape(difference.queryId()))
          .append("\"><td>")
          .append(Pages.escape(difference.queryId()))
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%+.2f", difference.delta()))
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%.2f", difference.a()))
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%.2f", difference.b()))
          .append("</td><td class=\"doc\">")
          .append(judgedList(judged, qrels.isPresent()))
          .append("</td><td class=\"doc\">")
          .append(ranking(top(connection, cellA.fingerprint(), difference.queryId()), judged))
          .append("</td><td class=\"doc\">")
          .append(ranking(top(connection, cellB.fingerprint(), difference.queryId()), judged))
          .append("</td></tr>");
    }
    html.append("</tbody></table></div>\n");
    if (moved.size() > MOVED_QUERIES) {
      html.append("<p class=\"note\">")
          .append(moved.size() - MOVED_QUERIES)
          .append(" more queries moved.</p>\n");
    }
  }

  private static Optional<Qrels> judgments(Catalog catalog, CellRecord cell) {
    Path jobDir = catalog.jobs().get(catalog.jobOf().get(cell.fingerprint()));
    if (jobDir == null || cell.versions() == null) {
      return Optional.empty();
    }
    return JobJudgments.read(jobDir, cell.versions().get("dataset_sha"));
  }

  private static String judgedList(Map<String, Integer> judged, boolean kept) {
    if (!kept) {
      return "<span class=\"note\">not kept</span>";
    }
    List<Map.Entry<String, Integer>> sorted = new ArrayList<>(judged.entrySet());
    sorted.sort(
        Map.Entry.<String, Integer>comparingByValue()
            .reversed()
            .thenComparing(Map.Entry.comparingByKey()));
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, Integer> entry : sorted) {
      out.append(out.isEmpty() ? "" : ", ")
          .append(Pages.escape(entry.getKey()))
          .append(" (")
          .append(entry.getValue())
          .append(')');
    }
    return out.isEmpty() ? "–" : out.toString();
  }

  private static String ranking(List<String> docs, Map<String, Integer> judged) {
    if (docs.isEmpty()) {
      return "–";
    }
    StringBuilder out = new StringBuilder("<ol class=\"top\">");
    for (String doc : docs) {
      Integer grade = judged.get(doc);
      out.append(grade != null && grade > 0 ? "<li><strong>" : "<li>")
          .append(Pages.escape(doc))
          .append(grade != null && grade > 0 ? " (" + grade + ")</strong>" : "")
          .append("</li>");
    }
    return out.append("</ol>").toString();
  }

  /** The cell's per-query values of {@code metric} from the warehouse, by query id. */
  private static Map<String, Double> perQuery(
      Connection connection, String fingerprint, String metric) throws SQLException {
    Map<String, Double> values = new LinkedHashMap<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT query_id, value FROM query_metrics WHERE fingerprint = ? AND metric = ?"
                + " ORDER BY query_id")) {
      statement.setString(1, fingerprint);
      statement.setString(2, metric);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          double value = rows.getDouble(2);
          values.put(rows.getString(1), rows.wasNull() ? null : value);
        }
      }
    }
    return values;
  }

  /** The cell's stored top {@value #TOP} for a query, from the warehouse. */
  private static List<String> top(Connection connection, String fingerprint, String queryId)
      throws SQLException {
    List<String> docs = new ArrayList<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT doc_id FROM rankings WHERE fingerprint = ? AND query_id = ? AND rank <= ?"
                + " ORDER BY rank")) {
      statement.setString(1, fingerprint);
      statement.setString(2, queryId);
      statement.setInt(3, TOP);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          docs.add(rows.getString(1));
        }
      }
    }
    return docs;
  }
}
