package dev.tenbin.eval.browse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.aggregate.Aggregate;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.PairedComparisons;
import dev.tenbin.eval.aggregate.RowKey;
import dev.tenbin.eval.leaderboard.HtmlReport;
import dev.tenbin.eval.leaderboard.SyntheticJob;
import dev.tenbin.eval.positions.DocumentLengths;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionAnalyzer;
import dev.tenbin.eval.positions.StoredPositions;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.eval.testing.EvaluatedCells;
import dev.tenbin.eval.testing.SyntheticCells;
import dev.tenbin.eval.warehouse.Warehouse;
import dev.tenbin.scoring.beir.AnswerSpan;
import dev.tenbin.scoring.beir.SpanQrels;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultBrowserTest {
  @TempDir Path dir;

  /** The synthetic job split over two job folders: BM25 and bge in one, the rest in the other. */
  private List<Path> twoJobs() {
    List<CellRecord> first = new ArrayList<>();
    List<CellRecord> second = new ArrayList<>();
    for (CellRecord cell : SyntheticJob.cells()) {
      String system = cell.key().system().name();
      (system.equals("bm25") || system.contains("bge") ? first : second).add(cell);
    }
    return List.of(job("job-one", first), job("job-two", second));
  }

  private Path job(String name, List<CellRecord> cells) {
    ResultStore store = ResultStore.open(dir.resolve(name));
    cells.forEach(store::append);
    return dir.resolve(name);
  }

  private ResultBrowser browser(List<Path> jobs) {
    ResultBrowser browser =
        new ResultBrowser(
            dir.resolve("all.duckdb"),
            new SiteNavigation("<nav id=\"site\">site</nav>", "#site { color: #123456; }\n"));
    browser.refresh(jobs);
    return browser;
  }

  private static Map<String, List<String>> query(String... pairs) {
    Map<String, List<String>> query = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      query.computeIfAbsent(pairs[i], k -> new ArrayList<>()).add(pairs[i + 1]);
    }
    return query;
  }

  /** The main table's rows: data-row id to its cells' text. */
  private static Map<String, List<String>> mainRows(String html) {
    Matcher table =
        Pattern.compile("<table id=\"leaderboard\">(.*?)</table>", Pattern.DOTALL).matcher(html);
    assertThat(table.find()).isTrue();
    Map<String, List<String>> rows = new LinkedHashMap<>();
    Matcher row =
        Pattern.compile("<tr class=\"row[^\"]*\" data-row=\"([^\"]*)\"[^>]*>(.*?)</tr>")
            .matcher(table.group(1));
    while (row.find()) {
      List<String> cells = new ArrayList<>();
      Matcher cell = Pattern.compile("<td[^>]*>(.*?)</td>").matcher(row.group(2));
      while (cell.find()) {
        cells.add(cell.group(1));
      }
      rows.put(unescape(row.group(1)), cells);
    }
    return rows;
  }

  private static List<String> header(String html) {
    Matcher head = Pattern.compile("<table id=\"leaderboard\"><thead><tr>(.*?)</tr>").matcher(html);
    assertThat(head.find()).isTrue();
    List<String> names = new ArrayList<>();
    Matcher th = Pattern.compile("<th[^>]*>(.*?)</th>").matcher(head.group(1));
    while (th.find()) {
      names.add(th.group(1));
    }
    return names;
  }

  private static String unescape(String text) {
    return text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
  }

  @Test
  void filtersNarrowTheRows() {
    ResultBrowser browser = browser(twoJobs());

    assertThat(mainRows(browser.leaderboard(Map.of())))
        .hasSize(7)
        .containsKey("dense:e5-small/base/retrieval");
    assertThat(mainRows(browser.leaderboard(query("language", "de"))).keySet())
        .as("e5-small has no German task")
        .hasSize(6)
        .doesNotContain("dense:e5-small/base/retrieval");
    assertThat(mainRows(browser.leaderboard(query("family", "bm25"))).keySet())
        .containsExactly("bm25/base/retrieval");
    assertThat(
            mainRows(browser.leaderboard(query("variant", "int8", "variant", "binary_rescore")))
                .keySet())
        .containsExactlyInAnyOrder(
            "dense:bge-small-en-v1.5/int8/retrieval",
            "dense:bge-small-en-v1.5/binary_rescore/retrieval",
            SyntheticJob.AWKWARD_SYSTEM + "/int8/retrieval");
    String xquad = browser.leaderboard(query("task", "xquad-de", "model", "bm25"));
    assertThat(mainRows(xquad).keySet()).containsExactly("bm25/base/retrieval");
    assertThat(xquad).contains("1 of 34 stored cells");
    // Nano-sets: NanoBEIR-en's three tasks; the other benchmark has two
    assertThat(browser.leaderboard(query("nano", "yes"))).contains("21 of 34 stored cells");
    assertThat(browser.leaderboard(query("nano", "no"))).contains("13 of 34 stored cells");
    // every synthetic cell finished on 2025-01-01
    assertThat(browser.leaderboard(query("from", "2025-01-01", "to", "2025-01-01")))
        .contains("34 of 34 stored cells");
    assertThat(browser.leaderboard(query("from", "2025-01-02"))).contains("id=\"no-rows\"");
  }

  @Test
  void microAndMacroEqualTheMeansRecomputedFromTheCells() {
    ResultBrowser browser = browser(twoJobs());
    // independently: per row, nDCG@10 × 100 per task; micro = mean over tasks, macro = mean over
    // benchmarks of the mean over datasets of the mean over their tasks
    Map<String, Map<TaskRef, Double>> scores = new TreeMap<>();
    for (CellRecord cell : SyntheticJob.cells()) {
      scores
          .computeIfAbsent(RowKey.of(cell.key()).id(), k -> new HashMap<>())
          .put(cell.key().task(), 100 * cell.metrics().get("ndcg@10"));
    }
    for (String aggregate : List.of("micro", "macro")) {
      String html = browser.leaderboard(query("aggregate", aggregate));
      List<String> header = header(html);
      int micro = header.indexOf("micro");
      int macro = header.indexOf("macro");
      assertThat(micro).isPositive();
      Map<String, List<String>> rows = mainRows(html);
      for (var row : scores.entrySet()) {
        Map<TaskRef, Double> byTask = row.getValue();
        double microMean =
            byTask.values().stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        Map<String, Map<String, List<Double>>> nested = new TreeMap<>();
        byTask.forEach(
            (task, value) ->
                nested
                    .computeIfAbsent(task.benchmark(), b -> new TreeMap<>())
                    .computeIfAbsent(task.dataset(), d -> new ArrayList<>())
                    .add(value));
        double macroMean =
            nested.values().stream()
                .mapToDouble(
                    datasets ->
                        datasets.values().stream()
                            .mapToDouble(
                                v ->
                                    v.stream()
                                        .mapToDouble(Double::doubleValue)
                                        .average()
                                        .orElseThrow())
                            .average()
                            .orElseThrow())
                .average()
                .orElseThrow();
        List<String> cells = rows.get(row.getKey());
        assertThat(cells.get(micro))
            .as(row.getKey() + " micro")
            .startsWith(String.format(Locale.ROOT, "%.2f", microMean));
        assertThat(cells.get(macro))
            .as(row.getKey() + " macro")
            .startsWith(String.format(Locale.ROOT, "%.2f", macroMean));
      }
      assertThat(html)
          .contains("<strong>" + aggregate)
          .contains("name=\"aggregate\" value=\"" + aggregate + "\" checked");
    }
    // the other average is one link away
    assertThat(browser.leaderboard(Map.of())).contains("href=\"?aggregate=macro\"");
  }

  @Test
  void rowsLinkToTheirJobsAndTaskScoresToTheirCells() throws Exception {
    ResultBrowser browser = browser(twoJobs());
    String html = browser.leaderboard(Map.of());

    List<String> bm25 = mainRows(html).get("bm25/base/retrieval");
    assertThat(bm25.getLast())
        .as("a row names its jobs by their labels, each job's id in its title")
        .contains("href=\"/jobs/job-one\" title=\"job-one\">J1</a>")
        .doesNotContain("job-two");
    assertThat(mainRows(html).get("dense:e5-small/base/retrieval").getLast())
        .contains("href=\"/jobs/job-two\" title=\"job-two\">J2</a>")
        .doesNotContain("job-one");
    assertThat(html)
        .as("the key under the table names each label's job")
        .contains(
            "Jobs: J1 <a href=\"/jobs/job-one\">job-<wbr>one</a>;"
                + " J2 <a href=\"/jobs/job-two\">job-<wbr>two</a>.");
    CellRecord cell =
        ResultStore.existing(dir.resolve("job-one"), "x").readAll().stream()
            .filter(c -> c.key().system().name().equals("bm25"))
            .findFirst()
            .orElseThrow();
    Path stored = ResultStore.existing(dir.resolve("job-one"), "x").storedFile(cell.fingerprint());
    assertThat(Files.isRegularFile(stored)).isTrue();
    assertThat(html).contains("href=\"/jobs/job-one/files/cells/" + stored.getFileName() + "\"");
  }

  @Test
  void valuesAreEscapedAndTheNavComesFirst() {
    String html = browser(twoJobs()).leaderboard(Map.of());

    assertThat(html)
        .doesNotContain(SyntheticJob.AWKWARD_MODEL)
        .contains("evil&lt;b&gt;&amp;&quot;model");
    assertThat(html.indexOf("<nav id=\"site\">")).isLessThan(html.indexOf("<h1>"));
    assertThat(html.indexOf("#site { color: #123456; }"))
        .as("the navigation's style, after the pages' own, in the head")
        .isGreaterThan(html.indexOf("form.filters"))
        .isLessThan(html.indexOf("</style>"));
    assertThat(html).startsWith("<!DOCTYPE html>").endsWith("</html>\n");
  }

  /** Queries of the position job: two per relative-position bin of a 700-token document. */
  private static final int POSITION_QUERIES = 2 * AnswerSpan.POSITION_BINS;

  /** The answer span of position query {@code q}: in bin {@code q / 2}, in a 700-token document. */
  private static AnswerSpan span(int q) {
    int bin = q / 2;
    return new AnswerSpan("d" + q, bin * 50 + 10, bin * 50 + 20, 1000);
  }

  /**
   * A cell of one task whose queries' nDCG@10 is {@code ndcg} of the query's number, with the
   * position analysis a job stores for it ({@link PositionAnalyzer}, {@link StoredPositions}).
   */
  private static CellRecord analysedCell(
      String family, String model, java.util.function.IntToDoubleFunction ndcg) {
    Map<String, AnswerSpan> spans = new LinkedHashMap<>();
    Map<String, Integer> lengths = new HashMap<>();
    List<StoredQuery> queries = new ArrayList<>();
    Map<String, Map<String, Double>> perQuery = new HashMap<>();
    for (int q = 0; q < POSITION_QUERIES; q++) {
      spans.put("q" + q, span(q));
      lengths.put("d" + q, 700);
      Map<String, Double> metrics = Map.of("ndcg@10", ndcg.applyAsDouble(q), "recall@100", 1.0);
      perQuery.put("q" + q, metrics);
      queries.add(
          new StoredQuery(
              "q" + q,
              metrics,
              List.of(new StoredDoc("d" + q, 2.0, 1), new StoredDoc("x", 1.0, 2))));
    }
    PositionAnalysis analysis =
        new PositionAnalyzer("bge-small-en-v1.5", new DocumentLengths("spans", lengths), 2)
            .analyse(List.copyOf(spans.keySet()), perQuery, SpanQrels.of(spans));
    CellKey key = CellKeys.key().dataset("spans").task("spans").system(family, model).build();
    double mean =
        perQuery.values().stream().mapToDouble(m -> m.get("ndcg@10")).average().orElseThrow();
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        EvaluatedCells.fingerprint(key),
        key,
        Map.of(),
        Map.of(),
        Map.of("ndcg@10", mean),
        Map.of("ndcg@10", new TieAwareValue(mean, mean, mean, 0, 0)),
        Map.of(),
        Map.of(StoredPositions.KEY, StoredPositions.toDiagnostic(analysis)),
        queries,
        "2025-01-02T03:04:05Z");
  }

  @Test
  void theComparisonShowsBothRowsPositionProfilesWithTheirStoredValues() {
    ResultStore store = ResultStore.open(dir.resolve("positions-job"));
    // BM25 flat but for a dip in the last bins; the dense model falls along the document
    store.append(analysedCell("bm25", "bm25", q -> q >= 36 ? 0.4 : 0.6 + (q % 2) * 0.1));
    store.append(
        analysedCell(
            "dense",
            "m",
            q -> {
              int bin = q / 2;
              return 0.95 - 0.02 * bin - (q % 2) * 0.05;
            }));
    ResultBrowser browser = browser(List.of(dir.resolve("positions-job")));

    String html = browser.compare(query("a", "bm25/base/retrieval", "b", "dense:m/base/retrieval"));

    assertThat(html).contains("<h2 id=\"positions-heading\">Position bias</h2>");
    // independently, from the stored cells: per row the mean nDCG@10 of each bin's queries (the
    // bin of a query is its answer's), and PSI = 1 − min/max of the bin means
    for (CellRecord cell : ResultStore.existing(dir.resolve("positions-job"), "x").readAll()) {
      String row = RowKey.of(cell.key()).id();
      double[] sum = new double[AnswerSpan.POSITION_BINS];
      int[] count = new int[AnswerSpan.POSITION_BINS];
      for (StoredQuery query : cell.queries()) {
        int bin = span(Integer.parseInt(query.queryId().substring(1))).positionBin();
        sum[bin] += query.metrics().get("ndcg@10");
        count[bin]++;
      }
      Matcher figure =
          Pattern.compile(
                  "<figure class=\"heatmap\" data-pos-row=\"(\\d+)\"><figcaption>spans · "
                      + Pattern.quote(HtmlReport.escape(row))
                      + "</figcaption>(.*?)</figure>")
              .matcher(html);
      assertThat(figure.find()).as("the heatmap of " + row).isTrue();
      Map<Integer, String> shown = new TreeMap<>();
      Matcher title =
          Pattern.compile("<title>512–1024 tokens, bin (\\d+): ([^<]*)</title>")
              .matcher(figure.group(2));
      while (title.find()) {
        shown.put(Integer.parseInt(title.group(1)), title.group(2));
      }
      Map<Integer, String> expected = new TreeMap<>();
      double min = Double.MAX_VALUE;
      double max = 0;
      for (int bin = 0; bin < AnswerSpan.POSITION_BINS; bin++) {
        double mean = sum[bin] / count[bin];
        min = Math.min(min, mean);
        max = Math.max(max, mean);
        expected.put(bin, String.format(Locale.ROOT, "%d queries, nDCG@10 %.3f", count[bin], mean));
      }
      assertThat(shown).as("the bins of " + row).isEqualTo(expected);
      Matcher tableRow =
          Pattern.compile(
                  "<tr class=\"position-row\" data-pos-row=\""
                      + figure.group(1)
                      + "\"[^>]*>(.*?)</tr>")
              .matcher(html);
      assertThat(tableRow.find()).as("the table row of " + row).isTrue();
      assertThat(tableRow.group(1))
          .as("PSI of 512–1024 tokens for " + row)
          .contains(
              "<td class=\"num\">" + String.format(Locale.ROOT, "%.3f", 1 - min / max) + "</td>");
      assertThat(html)
          .as("the profile line of " + row)
          .contains("<polyline class=\"profile\" data-pos-row=\"" + figure.group(1) + "\"");
    }
  }

  @Test
  void aBadParameterIsNamed() {
    ResultBrowser browser = browser(twoJobs());

    assertThatThrownBy(() -> browser.leaderboard(query("benchmark", "NoSuchBench")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("NoSuchBench")
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("benchmark");
    for (String[] bad :
        new String[][] {
          {"aggregate", "median"}, {"from", "yesterday"}, {"nano", "maybe"}, {"colour", "red"}
        }) {
      assertThatThrownBy(() -> browser.leaderboard(query(bad[0], bad[1])))
          .as(bad[0])
          .isInstanceOf(InvalidInputException.class)
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo(bad[0]);
    }
    assertThatThrownBy(() -> browser.leaderboard(query("from", "2025-02-01", "to", "2025-01-01")))
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("to");
    assertThatThrownBy(() -> browser.compare(query("a", "bm25/base/retrieval")))
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("b");
    assertThatThrownBy(() -> browser.compare(query("a", "nope", "b", "bm25/base/retrieval")))
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("a");
  }

  @Test
  void refreshPicksUpANewJobFolder() throws Exception {
    List<Path> jobs = twoJobs();
    ResultBrowser browser = browser(List.of(jobs.getFirst()));
    assertThat(mainRows(browser.leaderboard(Map.of())))
        .doesNotContainKey("dense:e5-small/base/retrieval");

    browser.refresh(jobs);

    assertThat(mainRows(browser.leaderboard(Map.of())))
        .containsKey("dense:e5-small/base/retrieval");
    try (var connection = Warehouse.openReadOnly(dir.resolve("all.duckdb"));
        var statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM cells")) {
      rows.next();
      assertThat(rows.getLong(1)).isEqualTo(SyntheticJob.cells().size());
    }
    // a cell added to a known folder counts after the next refresh
    ResultStore.open(jobs.getFirst())
        .append(
            SyntheticCells.cell("NanoBEIR-en", "NanoSciFact", "dense:fresh", "base", 0.7).build());
    browser.refresh(jobs);
    assertThat(mainRows(browser.leaderboard(Map.of()))).containsKey("dense:fresh/base/retrieval");
  }

  /** Two systems with per-query values on two tasks, in one job folder. */
  private List<CellRecord> pairedCells() {
    List<CellRecord> cells = new ArrayList<>();
    double[][] a = {
      {0.9, 0.1, 0.5, 0.7, 0.3, 0.8, 0.2, 0.6}, {0.4, 0.4, 0.9, 0.2, 0.5, 0.6, 0.7, 0.1}
    };
    double[][] b = {
      {0.5, 0.3, 0.5, 0.2, 0.3, 0.4, 0.6, 0.6}, {0.4, 0.1, 0.9, 0.6, 0.5, 0.2, 0.7, 0.3}
    };
    String[] tasks = {"NanoSciFact", "NanoFiQA"};
    for (int t = 0; t < 2; t++) {
      cells.add(cell(tasks[t], "dense:a", a[t]));
      cells.add(cell(tasks[t], "dense:b", b[t]));
    }
    return cells;
  }

  private static CellRecord cell(String task, String system, double[] values) {
    double mean = java.util.Arrays.stream(values).average().orElseThrow();
    return SyntheticCells.cell("NanoBEIR-en", task, system, "base", mean)
        .queryNdcg10(values)
        .build();
  }

  @Test
  void thePairedTestsAreThoseOfPairedComparisons() {
    List<CellRecord> cells = pairedCells();
    ResultBrowser browser = browser(List.of(job("paired", cells)));

    String html =
        browser.compare(query("a", "dense:a/base/retrieval", "b", "dense:b/base/retrieval"));

    PairedComparisons paired = Leaderboard.of(cells, ComparePage.options()).paired();
    assertThat(paired.tasks()).hasSize(2);
    for (PairedComparisons.TaskComparisons task : paired.tasks()) {
      PairedComparisons.Pair pair = task.pairs().getFirst();
      String row =
          "<td>"
              + pair.higher().id()
              + "</td><td>"
              + pair.lower().id()
              + "</td><td class=\"num\">"
              + String.format(Locale.ROOT, "%+.2f", pair.delta())
              + "</td>";
      assertThat(html).as(task.task().id()).contains(row);
      assertThat(html).contains(String.format(Locale.ROOT, "%.4f", pair.randomizationAdjusted()));
      assertThat(html).contains(String.format(Locale.ROOT, "%.2f", task.detectableEffect()));
    }
    assertThat(ComparePage.options().aggregate()).isEqualTo(Aggregate.MICRO);
  }

  @Test
  void movedQueriesAreOrderedByTheSizeOfTheirDifferenceThenById() {
    Map<String, Double> a = new LinkedHashMap<>();
    Map<String, Double> b = new LinkedHashMap<>();
    a.put("q3", 0.5);
    b.put("q3", 0.2); // +30
    a.put("q1", 0.1);
    b.put("q1", 0.4); // −30, ties with q3: q1 first
    a.put("q2", 0.6);
    b.put("q2", 0.5); // +10
    a.put("q4", 0.3);
    b.put("q4", 0.3); // did not move
    a.put("q5", 0.9); // only in a

    assertThat(ComparePage.differences(a, b))
        .extracting(ComparePage.QueryDifference::queryId)
        .containsExactly("q1", "q3", "q2");
    assertThat(ComparePage.differences(a, b).getFirst().delta())
        .isCloseTo(-30, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void theComparisonListsMovedQueriesWithJudgedDocumentsAndBothTopTens() throws Exception {
    String sha = "a".repeat(64);
    Map<String, List<ScoredDoc>> better = new LinkedHashMap<>(EvaluatedCells.run(0f));
    better.put(
        "q2", List.of(new ScoredDoc("d4", 3f), new ScoredDoc("d2", 2f), new ScoredDoc("d1", 1f)));
    List<CellRecord> cells =
        List.of(
            withDatasetSha(
                EvaluatedCells.cell(
                    EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"),
                    EvaluatedCells.QRELS,
                    EvaluatedCells.run(0f)),
                sha),
            withDatasetSha(
                EvaluatedCells.cell(
                    EvaluatedCells.key("NanoSciFact", "dense", "tiny", "base"),
                    EvaluatedCells.QRELS,
                    better),
                sha));
    Path job = job("ranked", cells);
    Files.createDirectories(job.resolve("judgments"));
    Files.writeString(
        job.resolve("judgments").resolve(sha + ".qrels"),
        "q1 0 d1 1\nq1 0 d9 0\nq2 0 d4 2\nq2 0 d2 1\n");
    ResultBrowser browser = browser(List.of(job));

    String html =
        browser.compare(query("a", "bm25/base/retrieval", "b", "dense:tiny/base/retrieval"));

    Matcher moved =
        Pattern.compile("<tr class=\"moved-query\" data-query=\"([^\"]*)\">(.*?)</tr>")
            .matcher(html);
    assertThat(moved.find()).isTrue();
    assertThat(moved.group(1)).isEqualTo("q2");
    assertThat(moved.group(2))
        .contains("d4 (2), d2 (1)")
        .contains("<ol class=\"top\"><li>d1</li><li>d3</li><li><strong>d4 (2)</strong></li></ol>")
        .contains(
            "<ol class=\"top\"><li><strong>d4 (2)</strong></li><li><strong>d2 (1)</strong></li><li>d1</li></ol>");
    assertThat(moved.find()).as("q1 did not move").isFalse();
  }

  private static CellRecord withDatasetSha(CellRecord cell, String sha) {
    Map<String, String> versions = new HashMap<>(cell.versions());
    versions.put("dataset_sha", sha);
    return new CellRecord(
        cell.formatVersion(),
        cell.fingerprint(),
        cell.key(),
        versions,
        cell.facts(),
        cell.metrics(),
        cell.tieAware(),
        cell.timings(),
        cell.diagnostics(),
        cell.queries(),
        cell.finishedAt());
  }
}
