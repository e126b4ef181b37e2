package dev.tenbin.eval.browse;

import dev.tenbin.eval.aggregate.Aggregate;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.leaderboard.HtmlReport;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.TaskRef;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The all-jobs leaderboard: the cells of every job passing the {@link Filters}, ranked as the
 * per-job page ranks them ({@link Leaderboard}, the micro average unless {@code aggregate=macro};
 * rank intervals, tied groups and the Pareto charts), each row linking to the jobs its cells came
 * from and each task score to its cell's file. A GET form sets the filters (it works without
 * script); a second form opens the comparison of two rows.
 */
final class LeaderboardPage {
  static final Set<String> PARAMETERS;

  static {
    Set<String> names = new HashSet<>(Filters.NAMES);
    names.add("aggregate");
    PARAMETERS = Set.copyOf(names);
  }

  private LeaderboardPage() {}

  /** The options the page ranks by: the job page's, without the pairwise tests of every pair. */
  static LeaderboardOptions options(Aggregate aggregate) {
    return LeaderboardOptions.defaults().withAggregate(aggregate).withPermutations(0);
  }

  static String render(
      Catalog catalog, Map<String, List<String>> query, SiteNavigation navigation) {
    Parameters parameters = Parameters.of(query, PARAMETERS);
    Aggregate aggregate =
        Aggregate.parse(parameters.choice("aggregate", List.of("micro", "macro"), "micro"));
    Filters filters = Filters.of(parameters, catalog.cells());
    List<CellRecord> cells = catalog.cells().stream().filter(filters::includes).toList();

    StringBuilder html = new StringBuilder(64 * 1024);
    html.append("<header><h1>Tenbin leaderboard: all jobs</h1><p class=\"meta\">")
        .append(
            Pages.escape(
                String.format(
                    Locale.ROOT,
                    "%d of %d stored cells from %d job folders; %s average of %s ×100",
                    cells.size(),
                    catalog.cells().size(),
                    catalog.jobs().size(),
                    aggregate.label(),
                    LeaderboardOptions.DEFAULT_METRIC)))
        .append("</p></header>\n");
    aggregateSwitch(html, parameters, aggregate);
    form(html, catalog.cells(), parameters, aggregate);
    if (cells.isEmpty()) {
      html.append("<p id=\"no-rows\">No stored cell passes these filters.</p>\n");
      return Pages.document("Tenbin leaderboard: all jobs", navigation, html.toString());
    }
    Leaderboard board = Leaderboard.of(cells, options(aggregate));
    Map<String, String> jobLabels = jobLabels(catalog, board);
    Function<LeaderboardRow, String> jobs = row -> jobLinks(catalog, board, row, jobLabels);
    HtmlReport.appendMainTable(
        html,
        board,
        new HtmlReport.Links(
            "Jobs",
            jobs,
            (row, task) ->
                board
                    .matrix()
                    .cell(row.key(), task)
                    .map(cell -> cellHref(catalog, cell))
                    .orElse(null),
            true));
    jobKey(html, jobLabels);
    compareForm(html, board);
    html.append("<h2>Pareto frontiers</h2>\n");
    HtmlReport.appendCharts(html, board);
    html.append("<h2>Per task</h2>\n");
    HtmlReport.appendTaskTable(
        html,
        board,
        new HtmlReport.Links(
            null,
            row -> "",
            (row, task) -> {
              var cell = board.matrix().cell(row.key(), task);
              return cell.map(c -> cellHref(catalog, c)).orElse(null);
            },
            false));
    html.append("<p class=\"note\">A task score links to its stored cell.</p>\n");
    return Pages.document("Tenbin leaderboard: all jobs", navigation, html.toString());
  }

  private static String cellHref(Catalog catalog, CellRecord cell) {
    String file = catalog.files().get(cell.fingerprint());
    String job = catalog.jobOf().get(cell.fingerprint());
    return file == null || job == null ? null : Pages.fileHref(job, file);
  }

  /** The row's jobs, linked: those that stored a cell it counts, by name. */
  static Set<String> jobsOf(Catalog catalog, Leaderboard board, LeaderboardRow row) {
    Set<String> jobs = new TreeSet<>();
    for (TaskRef task : board.tasks()) {
      board
          .matrix()
          .cell(row.key(), task)
          .map(cell -> catalog.jobOf().get(cell.fingerprint()))
          .ifPresent(jobs::add);
    }
    return jobs;
  }

  /**
   * The short labels the main table gives the jobs its rows came from: J1, J2, ... in the order the
   * jobs were given to the browser (a job's id can be long, and one job often fills many rows; the
   * key under the table names each label's job).
   */
  static Map<String, String> jobLabels(Catalog catalog, Leaderboard board) {
    Set<String> shown = new HashSet<>();
    for (LeaderboardRow row : board.rows()) {
      shown.addAll(jobsOf(catalog, board, row));
    }
    Map<String, String> labels = new LinkedHashMap<>();
    for (String job : catalog.jobs().keySet()) {
      if (shown.contains(job)) {
        labels.put(job, "J" + (labels.size() + 1));
      }
    }
    return labels;
  }

  private static String jobLinks(
      Catalog catalog, Leaderboard board, LeaderboardRow row, Map<String, String> labels) {
    StringBuilder html = new StringBuilder("<span class=\"jobs\">");
    Set<String> ofRow = jobsOf(catalog, board, row);
    for (String job : labels.keySet()) {
      if (!ofRow.contains(job)) {
        continue;
      }
      html.append("<a href=\"")
          .append(Pages.escape(Pages.jobHref(job)))
          .append("\" title=\"")
          .append(Pages.escape(job))
          .append("\">")
          .append(Pages.escape(labels.get(job)))
          .append("</a> ");
    }
    return html.append("</span>").toString();
  }

  /** The key to the main table's job labels: each label with its job's id, linked. */
  private static void jobKey(StringBuilder html, Map<String, String> labels) {
    html.append("<p class=\"note\" id=\"job-key\">Jobs: ");
    String separator = "";
    for (Map.Entry<String, String> label : labels.entrySet()) {
      html.append(separator)
          .append(Pages.escape(label.getValue()))
          .append(" <a href=\"")
          .append(Pages.escape(Pages.jobHref(label.getKey())))
          .append("\">")
          .append(HtmlReport.breakableName(label.getKey()))
          .append("</a>");
      separator = "; ";
    }
    html.append(".</p>\n");
  }

  private static void aggregateSwitch(StringBuilder html, Parameters parameters, Aggregate shown) {
    html.append("<p id=\"aggregate-switch\">Average: ");
    for (Aggregate aggregate : Aggregate.values()) {
      String label =
          aggregate.label()
              + (aggregate == Aggregate.MICRO
                  ? " (every task weighs the same)"
                  : " (every benchmark weighs the same)");
      if (aggregate == shown) {
        html.append("<strong>").append(Pages.escape(label)).append("</strong>");
      } else {
        html.append("<a href=\"")
            .append(Pages.escape(parameters.with("aggregate", aggregate.label())))
            .append("\">")
            .append(Pages.escape(label))
            .append("</a>");
      }
      html.append(aggregate == Aggregate.MICRO ? " · " : "");
    }
    html.append("</p>\n");
  }

  /** The GET form of the filters: multiple-choice lists, the Nano-set choice and the dates. */
  private static void form(
      StringBuilder html, List<CellRecord> all, Parameters parameters, Aggregate aggregate) {
    html.append("<form class=\"filters\" method=\"get\" action=\"\" aria-label=\"filters\">");
    select(
        html, parameters, "benchmark", "Benchmark", Filters.known(all, k -> k.task().benchmark()));
    select(html, parameters, "task", "Task", Filters.known(all, k -> k.task().id()));
    select(html, parameters, "language", "Language", Filters.known(all, k -> k.task().language()));
    select(html, parameters, "family", "Family", Filters.known(all, k -> k.system().family()));
    select(html, parameters, "model", "Model", Filters.known(all, k -> k.system().model()));
    select(html, parameters, "variant", "Variant", Filters.known(all, CellKey::variant));
    String nano = parameters.single("nano");
    html.append("<label>Nano-sets<select name=\"nano\">")
        .append(option("", "any", nano == null))
        .append(option("yes", "only Nano-sets", "yes".equals(nano)))
        .append(option("no", "no Nano-sets", "no".equals(nano)))
        .append("</select></label>");
    for (String[] date : new String[][] {{"from", "Finished from"}, {"to", "Finished to"}}) {
      String value = parameters.single(date[0]);
      html.append("<label>")
          .append(date[1])
          .append("<input type=\"date\" name=\"")
          .append(date[0])
          .append("\" value=\"")
          .append(Pages.escape(value == null ? "" : value))
          .append("\"></label>");
    }
    html.append("<fieldset><legend>Average</legend>");
    for (Aggregate option : Aggregate.values()) {
      html.append("<label><span><input type=\"radio\" name=\"aggregate\" value=\"")
          .append(option.label())
          .append("\"")
          .append(option == aggregate ? " checked" : "")
          .append("> ")
          .append(option.label())
          .append("</span></label>");
    }
    html.append("</fieldset><button type=\"submit\">Apply</button>")
        .append("<a href=\"?\">clear filters</a></form>\n");
  }

  private static void select(
      StringBuilder html, Parameters parameters, String name, String label, Set<String> values) {
    Set<String> chosen = new LinkedHashSet<>(parameters.all(name));
    html.append("<label>")
        .append(Pages.escape(label))
        .append("<select name=\"")
        .append(name)
        .append("\" multiple size=\"")
        .append(Math.max(2, Math.min(4, values.size())))
        .append("\">");
    for (String value : values) {
      html.append(option(value, value, chosen.contains(value)));
    }
    html.append("</select></label>");
  }

  private static String option(String value, String label, boolean selected) {
    return "<option value=\""
        + Pages.escape(value)
        + "\""
        + (selected ? " selected" : "")
        + ">"
        + Pages.escape(label)
        + "</option>";
  }

  /** A GET form to the comparison page: two rows of this leaderboard, on one task or all. */
  private static void compareForm(StringBuilder html, Leaderboard board) {
    List<LeaderboardRow> rows = board.rows();
    if (rows.size() < 2) {
      return;
    }
    html.append("<form class=\"filters\" id=\"compare-form\" method=\"get\" action=\"")
        .append(Pages.COMPARE_PATH)
        .append("\" aria-label=\"compare two systems\">");
    for (int side = 0; side < 2; side++) {
      html.append("<label>")
          .append(side == 0 ? "System A" : "System B")
          .append("<select name=\"")
          .append(side == 0 ? "a" : "b")
          .append("\">");
      for (int r = 0; r < rows.size(); r++) {
        String id = rows.get(r).key().id();
        html.append(option(id, id, r == side));
      }
      html.append("</select></label>");
    }
    // One task of the leaderboard, or (blank, the comparison page's default) every task both
    // rows have.
    html.append("<label>Task<select name=\"task\">").append(option("", "all shared", true));
    for (TaskRef task : board.tasks()) {
      html.append(option(task.id(), task.id(), false));
    }
    html.append("</select></label>");
    html.append("<button type=\"submit\">Compare</button></form>\n");
  }
}
