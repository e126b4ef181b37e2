package dev.tenbin.eval.leaderboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportFormatsTest {
  private static final Leaderboard BOARD =
      Leaderboard.of(SyntheticJob.cells(), LeaderboardOptions.defaults().withBootstrapDraws(200));

  @Test
  void theTerminalTableHasOneAlignedLinePerRowWithRanksAndCoverage() {
    String table = TerminalTable.render(BOARD);
    List<String> lines = table.lines().toList();

    assertThat(lines.get(1))
        .contains(
            "rank",
            "system",
            "variant",
            "mode",
            "micro",
            "macro",
            "MLQA-mini",
            "NanoBEIR-en",
            "Δ base",
            "tasks");
    List<String> rows = lines.subList(3, 3 + BOARD.rows().size());
    assertThat(rows.getFirst()).startsWith("   1  " + SyntheticJob.AWKWARD_SYSTEM).endsWith("5/5");
    assertThat(rows.getLast()).startsWith("   –  dense:e5-small").endsWith("4/5");
    assertThat(rows.stream().map(String::length).distinct()).hasSize(1);
  }

  @Test
  void countsOfOneAreSingularInTheReportText() {
    Leaderboard oneBenchmark =
        Leaderboard.of(
            SyntheticJob.cells().stream()
                .filter(c -> c.key().task().task().equals("NanoSciFact"))
                .toList(),
            LeaderboardOptions.defaults().withBootstrapDraws(50));

    assertThat(ReportText.title(oneBenchmark))
        .contains("; 1 task in 1 benchmark;")
        .doesNotContain("1 tasks", "1 benchmarks");
    assertThat(ReportText.title(BOARD)).contains("5 tasks in 2 benchmarks");
    assertThat(ReportText.count(1, "row")).isEqualTo("1 row");
    assertThat(ReportText.count(0, "row")).isEqualTo("0 rows");
  }

  @Test
  void markdownHasTheMainAndPerTaskTablesWithEscapedNames() {
    String md = MarkdownReport.render(BOARD, List.of("c1.svg", "c2.svg"));

    assertThat(md)
        .contains(
            "| rank | system |",
            "## Per task",
            "NanoBEIR-en/NanoSciFact (en)",
            "![Pareto frontier](c1.svg)");
    assertThat(md).contains("dense:evil\\<b\\>\\&\"model").doesNotContain("evil<b>");
    assertThat(md).doesNotContain("&amp;", "&lt;", "&gt;", "&quot;", "&#39;");
    assertThat(md).contains("⚠");
    long tableLines = md.lines().filter(l -> l.startsWith("|")).count();
    long rowsWithBytes =
        BOARD.rows().stream().filter(row -> row.facts().bytesPerVector() != null).count();
    assertThat(rowsWithBytes).isPositive();
    long pairedLines =
        PairedTables.of(BOARD).stream()
            .mapToLong(
                t ->
                    2
                        + t.rows().rows().size()
                        + (t.pairs().rows().isEmpty() ? 0 : 2 + t.pairs().rows().size()))
            .sum();
    // the synthetic cells keep no per-query values: no pair, no paired table, one line saying why
    assertThat(pairedLines).isZero();
    assertThat(md).contains("Paired tests need two ranked rows with per-query values on a task");
    long rowsWithLatency =
        BOARD.rows().stream().filter(row -> row.facts().latencyUs() != null).count();
    long latencyLines = rowsWithLatency == 0 ? 0 : 2 + rowsWithLatency;
    assertThat(tableLines)
        .isEqualTo(2L * (2 + BOARD.rows().size()) + 2 + rowsWithBytes + pairedLines + latencyLines);
    assertThat(md).contains("## Bytes per document", "| stored B/document | scanned B/document |");
    assertThat(rowsWithLatency).isPositive();
    assertThat(md).contains("## Query latency", "| p50 µs | p99 µs |");
    // bm25 and the base rows were measured with 4 in flight, the header says so; the other rows'
    // cells were stored before: –
    assertThat(md)
        .contains(
            "| system | variant | mode | p50 µs | p99 µs | p50 µs @4 | p99 µs @4 | q/s @4 |",
            "@4: the same queries with 4 in flight",
            "–: not measured");
    String bm25 =
        md.lines().filter(l -> l.startsWith("| bm25 | base |")).reduce((a, b) -> b).orElseThrow();
    // 1.4 × 900 µs, 3 × 900 µs, 4e6 / 1,260 µs
    assertThat(bm25).endsWith("| 900 | – | 1260 | 2700 | 3175 |");
    assertThat(
            md.lines().filter(l -> l.startsWith("| dense:e5-small | base |")).reduce((a, b) -> b))
        .hasValueSatisfying(l -> assertThat(l).endsWith("| – | – | – |"));
  }

  @Test
  void theHtmlPageHasTheLatencyTableWithTheConcurrentColumns() {
    String html = HtmlReport.render(BOARD);

    assertThat(html)
        .contains(
            "<h2>Query latency</h2>",
            "<table id=\"latency\">",
            "<th>p50 µs @4</th><th>p99 µs @4</th><th>q/s @4</th>",
            "<td class=\"num\">3175</td>");
  }

  @Test
  void theHtmlPageIsSelfContainedAndEscapesEveryName() {
    String html = HtmlReport.render(BOARD);

    assertThat(html).doesNotContain("evil<b>").contains("dense:evil&lt;b&gt;&amp;&quot;model");
    assertThat(html).doesNotContainPattern("<script[^>]* src=").doesNotContainPattern("<link ");
    Matcher data =
        Pattern.compile(
                "<script type=\"application/json\" id=\"leaderboard-data\">(.*?)</script>",
                Pattern.DOTALL)
            .matcher(html);
    assertThat(data.find()).isTrue();
    assertThat(data.group(1)).doesNotContain("<").contains("evil\\u003cb\\u003e\\u0026");
  }

  @Test
  void theHtmlOnlyMentionsTheSvgNamespaceAsAUrl() {
    String html = HtmlReport.render(BOARD).replace("http://www.w3.org/2000/svg", "");
    assertThat(html).doesNotContain("http://", "https://", "//cdn");
  }

  @Test
  void jsonCarriesRowsTasksAndTheChosenAggregate() throws Exception {
    JsonNode json = new ObjectMapper().readTree(ReportFormat.JSON.render(BOARD));

    assertThat(json.get("aggregate").asText()).isEqualTo("macro");
    assertThat(json.get("tasks")).hasSize(5);
    assertThat(json.get("rows")).hasSize(BOARD.rows().size());
    JsonNode top = json.get("rows").get(0);
    assertThat(top.get("system").asText()).isEqualTo(SyntheticJob.AWKWARD_SYSTEM);
    assertThat(top.get("rank").asInt()).isEqualTo(1);
    assertThat(top.get("macro_interval")).hasSize(2);
    assertThat(json.get("tasks").get(0).get("query_length").asText()).isNotEmpty();
    JsonNode bm25 = row(json, "bm25", "base");
    assertThat(bm25.get("concurrent_in_flight").asInt()).isEqualTo(4);
    assertThat(bm25.get("concurrent_in_flight_min").asInt()).isEqualTo(4);
    assertThat(bm25.get("concurrent_latency_p50_us").asDouble()).isCloseTo(1_260, within(1e-6));
    assertThat(bm25.get("concurrent_latency_p99_us").asDouble()).isCloseTo(2_700, within(1e-6));
    assertThat(bm25.get("concurrent_queries_per_second").asDouble())
        .isCloseTo(4e6 / 1_260, within(1e-6));
    JsonNode older = row(json, "dense:bge-small-en-v1.5", "int8");
    for (String field :
        List.of(
            "concurrent_in_flight",
            "concurrent_in_flight_min",
            "concurrent_latency_p50_us",
            "concurrent_latency_p99_us",
            "concurrent_queries_per_second")) {
      assertThat(older.get(field).isNull()).as(field).isTrue();
    }
  }

  private static JsonNode row(JsonNode json, String system, String variant) {
    for (JsonNode row : json.get("rows")) {
      if (row.get("system").asText().equals(system)
          && row.get("variant").asText().equals(variant)) {
        return row;
      }
    }
    throw new AssertionError("no row " + system + "/" + variant);
  }

  @Test
  void aPriceAddsACostChartAndCostColumns(@TempDir Path dir) throws Exception {
    Leaderboards.writeAll(
        SyntheticJob.cells(),
        dir,
        LeaderboardOptions.defaults()
            .withBootstrapDraws(100)
            .withPrice(new dev.tenbin.eval.job.Price(0.36, 3.6)));

    assertThat(dir.resolve(Leaderboards.COST_CHART_FILE)).isNotEmptyFile();
    assertThat(Files.readString(dir.resolve(Leaderboards.COST_CHART_FILE)))
        .contains("cost per 1,000 queries (cpu_hour 0.36, gpu_hour 3.6)");
    assertThat(Files.readString(dir.resolve(Leaderboards.MARKDOWN_FILE)))
        .contains("](leaderboard-pareto-cost.svg)", "| cost/1K queries | cost/1M docs |");
    assertThat(Files.readString(dir.resolve(Leaderboards.HTML_FILE)))
        .contains("id=\"figure-cost\"");
    // without a price, no cost chart
    Path plain = dir.resolve("plain");
    Leaderboards.writeAll(SyntheticJob.cells(), plain, LeaderboardOptions.defaults());
    assertThat(plain.resolve(Leaderboards.COST_CHART_FILE)).doesNotExist();
  }

  @Test
  void writeAllWritesTheHtmlMarkdownJsonAndChartsAndReturnsTheTable(@TempDir Path dir)
      throws Exception {
    String table =
        Leaderboards.writeAll(
            SyntheticJob.cells(), dir, LeaderboardOptions.defaults().withBootstrapDraws(100));

    assertThat(table).contains("bm25");
    for (String file :
        List.of(
            Leaderboards.HTML_FILE,
            Leaderboards.MARKDOWN_FILE,
            Leaderboards.JSON_FILE,
            Leaderboards.BYTES_CHART_FILE,
            Leaderboards.LATENCY_CHART_FILE)) {
      assertThat(dir.resolve(file)).isNotEmptyFile();
    }
    assertThat(Files.readString(dir.resolve(Leaderboards.BYTES_CHART_FILE)))
        .startsWith("<?xml")
        .contains("point frontier");
    try (var listing = Files.list(dir)) {
      assertThat(listing.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void aWideTieRangeIsMarkedOnTheTaskWhereItExceedsTheGap() {
    TieMarkers ties = new TieMarkers(BOARD);
    var awkwardInt8 =
        BOARD.rows().stream()
            .filter(
                r ->
                    r.key().system().name().equals(SyntheticJob.AWKWARD_SYSTEM)
                        && r.key().variant().equals("int8"))
            .findFirst()
            .orElseThrow();
    var bm25 =
        BOARD.rows().stream()
            .filter(r -> r.key().system().name().equals("bm25"))
            .findFirst()
            .orElseThrow();

    var scifact =
        BOARD.tasks().stream()
            .filter(t -> t.task().equals("NanoSciFact"))
            .findFirst()
            .orElseThrow();
    var fiqa =
        BOARD.tasks().stream().filter(t -> t.task().equals("NanoFiQA")).findFirst().orElseThrow();
    assertThat(ties.task(awkwardInt8, scifact)).contains("exceeds the gap");
    assertThat(ties.task(awkwardInt8, fiqa)).isNull();
    assertThat(ties.task(bm25, scifact)).isNull();
  }
}
