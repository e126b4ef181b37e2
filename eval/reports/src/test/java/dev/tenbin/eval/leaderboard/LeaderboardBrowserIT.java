package dev.tenbin.eval.leaderboard;

import static dev.tenbin.testing.browser.HeadlessChromium.bodyTag;
import static dev.tenbin.testing.browser.HeadlessChromium.unescape;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.testing.browser.HeadlessChromium;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loads the HTML leaderboard in headless Chromium ({@link HeadlessChromium}) and checks the page
 * after its script ran.
 */
class LeaderboardBrowserIT {
  private static final Leaderboard BOARD =
      Leaderboard.of(SyntheticJob.cells(), LeaderboardOptions.defaults().withBootstrapDraws(200));

  @TempDir static Path dir;
  private static HeadlessChromium chromium;
  private static Path page;

  @BeforeAll
  static void writePage() throws IOException {
    chromium = HeadlessChromium.in(dir);
    page = dir.resolve("leaderboard.html");
    Files.writeString(page, HtmlReport.render(BOARD), StandardCharsets.UTF_8);
    positionsPage = dir.resolve("positions.html");
    Files.writeString(
        positionsPage, HtmlReport.render(BOARD, SyntheticPositions.rows()), StandardCharsets.UTF_8);
  }

  private static Path positionsPage;

  @Test
  void thePositionViewFiltersByFamilySortsByPsiAndDrawsTheTickedProfiles() throws Exception {
    String dom =
        run(
            List.of(
                "--dump-dom",
                positionsPage.toUri() + "#pos_family=dense&pos_sort=psi1&pos_desc=1"));

    assertThat(bodyTag(dom))
        .contains("data-render=\"ok\"", "data-positions=\"ok\"")
        .doesNotContain("data-render-error");
    String table = tbody(dom, "positions");
    Matcher row =
        Pattern.compile(
                "<tr class=\"position-row\" data-pos-row=\"(\\d)\"[^>]*?(style=\"[^\"]*\")?>")
            .matcher(table);
    List<String> order = new ArrayList<>();
    List<String> hidden = new ArrayList<>();
    while (row.find()) {
      order.add(row.group(1));
      if (row.group(2) != null && row.group(2).contains("display: none")) {
        hidden.add(row.group(1));
      }
    }
    // rows 0 bm25, 1 dense base, 2 dense int8; PSI of bucket 512-1024 falls in that order
    assertThat(order).as("sorted by PSI of 512-1024, highest first").containsExactly("2", "1", "0");
    assertThat(hidden).as("family filter dense").containsExactly("0");
    Matcher lines =
        Pattern.compile("<polyline class=\"profile\" data-pos-row=\"(\\d)\"").matcher(dom);
    List<String> drawn = new ArrayList<>();
    while (lines.find()) {
      drawn.add(lines.group(1));
    }
    assertThat(drawn).as("ticked and visible rows").containsExactly("2", "1");
    assertThat(dom)
        .as("the legend names the drawn lines")
        .contains(
            "</span>task dense:m/int8/retrieval</li>", "</span>task dense:m/base/retrieval</li>")
        .doesNotContain("</span>task bm25/base/retrieval</li>");
  }

  @Test
  void theScriptRendersEveryRowWithTheSameRanksAsJava() throws Exception {
    String dom = dumpDom("");

    assertThat(bodyTag(dom)).contains("data-render=\"ok\"").doesNotContain("data-render-error");
    Map<String, String> ranks = new HashMap<>();
    Matcher row =
        Pattern.compile("<tr class=\"row[^\"]*\" data-row=\"([^\"]*)\" data-rank=\"([^\"]*)\"")
            .matcher(tbody(dom, "leaderboard"));
    while (row.find()) {
      ranks.put(unescape(row.group(1)), row.group(2));
    }
    Map<String, String> expected = new HashMap<>();
    for (LeaderboardRow r : BOARD.rows()) {
      expected.put(r.key().id(), r.rank() == null ? "" : String.valueOf(r.rank()));
    }
    assertThat(ranks).isEqualTo(expected);
  }

  @Test
  void theChartsShowHighlightedFrontierPoints() throws Exception {
    String dom = dumpDom("");

    for (String chart : List.of("chart-bytes", "chart-latency")) {
      Matcher svg =
          Pattern.compile("<svg id=\"" + chart + "\".*?</svg>", Pattern.DOTALL).matcher(dom);
      assertThat(svg.find()).as(chart).isTrue();
      assertThat(svg.group())
          .contains("class=\"point frontier\"", "class=\"frontier-line\"", "class=\"axis-label\"");
    }
    // bm25 stores no vectors: it is on the latency chart only
    assertThat(svgOf(dom, "chart-bytes")).doesNotContain("data-row=\"bm25/base/retrieval\"");
    assertThat(svgOf(dom, "chart-latency")).contains("data-row=\"bm25/base/retrieval\"");
  }

  @Test
  void sortingFilterAndAggregateControlsArePresent() throws Exception {
    String dom = dumpDom("");

    assertThat(dom)
        .contains("data-sort=\"rank\"", "data-sort=\"macro\"", "data-sort=\"bench:MLQA-mini\"");
    for (String filter :
        List.of(
            "benchmark",
            "language",
            "domain",
            "query_length",
            "document_length",
            "family",
            "variant",
            "dimension",
            "parameters_bucket")) {
      assertThat(dom).contains("data-filter=\"" + filter + "\"");
    }
    assertThat(dom).contains("name=\"aggregate\" value=\"micro\"");
  }

  @Test
  void aTieMarkerFlagsTheCellWhoseTieRangeExceedsTheGap() throws Exception {
    String tasks = tbody(dumpDom(""), "tasks");
    Matcher tie =
        Pattern.compile("<tr class=\"task-row[^\"]*\" data-row=\"([^\"]*)\">(.*?)</tr>")
            .matcher(tasks);
    List<String> flagged = new ArrayList<>();
    while (tie.find()) {
      if (tie.group(2).contains("class=\"tie\"")) {
        flagged.add(unescape(tie.group(1)));
      }
    }
    assertThat(flagged).containsExactly(SyntheticJob.AWKWARD_SYSTEM + "/int8/retrieval");
  }

  @Test
  void theUrlFragmentFiltersTasksAndSortsRows() throws Exception {
    String dom = dumpDom("#language=de&sort=system");

    assertThat(bodyTag(dom)).contains("data-render=\"ok\"").doesNotContain("data-render-error");
    String body = tbody(dom, "leaderboard");
    // e5-small has no German task, so it drops out; the rest are sorted by system name
    assertThat(body).doesNotContain("e5-small");
    Matcher first = Pattern.compile("<td class=\"system\">([^<]*)</td>").matcher(body);
    assertThat(first.find()).isTrue();
    assertThat(first.group(1)).isEqualTo("bm25");
    assertThat(tbody(dom, "tasks")).doesNotContain("NanoSciFact");
    assertThat(dom).contains("over 1 tasks");
  }

  @Test
  void theMainTableFitsA1024PixelWindow() throws Exception {
    String narrow = run(List.of("--window-size=1024,800", "--dump-dom", page.toUri().toString()));
    assertThat(bodyTag(narrow)).contains("data-render=\"ok\"", "data-main-table-overflow=\"no\"");
    // the check can fail: far narrower, the same table needs its scroll
    String phone = run(List.of("--window-size=480,800", "--dump-dom", page.toUri().toString()));
    assertThat(bodyTag(phone)).contains("data-main-table-overflow=\"yes\"");
  }

  @Test
  void theStaticPageShowsEveryLegendAndLabelAt1024And1400Pixels() throws Exception {
    for (int width : new int[] {1024, 1400}) {
      assertThat(layoutProblems(positionsPage, width)).as("at %d px", width).isEmpty();
    }
  }

  @Test
  void theAllJobsAndComparePagesFitAndShowTheirLegendsAt1024And1400Pixels() throws Exception {
    Path jobs = Files.createDirectories(dir.resolve("jobs"));
    var store = dev.tenbin.eval.store.ResultStore.open(jobs.resolve("synthetic-job"));
    SyntheticJob.cells().forEach(store::append);
    Map<String, java.util.List<dev.tenbin.scoring.metrics.ScoredDoc>> better =
        new java.util.LinkedHashMap<>(dev.tenbin.eval.testing.EvaluatedCells.run(0f));
    better.put(
        "q2",
        List.of(
            new dev.tenbin.scoring.metrics.ScoredDoc("d4", 3f),
            new dev.tenbin.scoring.metrics.ScoredDoc("d2", 2f)));
    var ranked = dev.tenbin.eval.store.ResultStore.open(jobs.resolve("ranked-job"));
    ranked.append(
        dev.tenbin.eval.testing.EvaluatedCells.cell(
            dev.tenbin.eval.testing.EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"),
            dev.tenbin.eval.testing.EvaluatedCells.QRELS,
            dev.tenbin.eval.testing.EvaluatedCells.run(0f)));
    ranked.append(
        dev.tenbin.eval.testing.EvaluatedCells.cell(
            dev.tenbin.eval.testing.EvaluatedCells.key("NanoSciFact", "dense", "tiny", "base"),
            dev.tenbin.eval.testing.EvaluatedCells.QRELS,
            better));
    var browser =
        new dev.tenbin.eval.browse.ResultBrowser(
            dir.resolve("browse.duckdb"),
            new dev.tenbin.eval.browse.SiteNavigation(
                "<nav class=\"site\"><a href=\"/\">Tenbin</a></nav>", ""));
    browser.refresh(List.of(jobs.resolve("synthetic-job"), jobs.resolve("ranked-job")));
    Path board = dir.resolve("all-jobs.html");
    Files.writeString(board, browser.leaderboard(Map.of()), StandardCharsets.UTF_8);
    Path macro = dir.resolve("all-jobs-macro.html");
    Files.writeString(
        macro,
        browser.leaderboard(
            Map.of("aggregate", List.of("macro"), "benchmark", List.of("NanoBEIR-en"))),
        StandardCharsets.UTF_8);
    Path compare = dir.resolve("compare.html");
    Files.writeString(
        compare,
        browser.compare(
            Map.of("a", List.of("bm25/base/retrieval"), "b", List.of("dense:tiny/base/retrieval"))),
        StandardCharsets.UTF_8);
    String compareHtml = Files.readString(compare);
    assertThat(compareHtml).contains("class=\"moved-query\"", "id=\"paired-tests\"");

    for (Path page : List.of(board, macro, compare)) {
      for (int width : new int[] {1024, 1400}) {
        assertThat(layoutProblems(page, width))
            .as("%s at %d px", page.getFileName(), width)
            .isEmpty();
      }
    }
  }

  @Test
  void theLayoutCheckFindsClippedLegendsUnlabelledPointsAndOverflow() throws Exception {
    Path broken = dir.resolve("broken.html");
    Files.writeString(
        broken,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>"
            + "<svg id=\"scale\" width=\"60\" height=\"20\"><text x=\"0\" y=\"12\">nDCG@10 and more</text></svg>"
            + "<div class=\"legend\" style=\"width:40px;overflow:hidden;white-space:nowrap\">faded: fewer than 5 queries</div>"
            + "<svg id=\"chart\" class=\"pareto\" width=\"100\" height=\"100\"><circle class=\"point\" cx=\"50\" cy=\"50\" r=\"4\"/></svg>"
            + "<table><tr><th style=\"max-width:3em;word-break:break-all\">NanoClimateFEVER</th></tr></table>"
            // Widths in ch of a monospace font, so that what fits does not depend on the fonts
            // installed: every word of the first cell fits on a line, "retrieval" does not.
            + "<table id=\"leaderboard\" style=\"font-family:monospace\"><tr>"
            + "<td style=\"max-width:7ch;overflow-wrap:anywhere\">dense:<wbr>bge-<wbr>small</td>"
            + "<td style=\"max-width:4ch;overflow-wrap:anywhere\">retrieval</td></tr></table>"
            + "<div style=\"width:3000px\">wide</div></body></html>",
        StandardCharsets.UTF_8);

    String problems = layoutProblems(broken, 1024);

    assertThat(problems)
        .contains(
            "page wider than the window",
            "text outside its svg #scale",
            "clipped: div \"faded: fewer than 5 queries\"",
            "no legend for the chart #chart",
            "unlabelled point in #chart",
            "header broken inside \"NanoClimateFEVER\"",
            "cell broken inside \"retrieval\"")
        .as("a main-table cell broken at its separators only passes")
        .doesNotContain("cell broken inside \"dense\"", "cell broken inside \"bge\"");
  }

  /** The problems {@link HeadlessChromium#layoutProblems} finds on the page file. */
  static String layoutProblems(Path page, int width) throws Exception {
    return chromium.layoutProblems(Files.readString(page, StandardCharsets.UTF_8), width);
  }

  @Test
  void aScreenshotOfThePageIsAPng() throws Exception {
    Path png = dir.resolve("leaderboard.png");
    run(List.of("--screenshot=" + png, "--window-size=1280,1600", page.toUri().toString()));
    byte[] bytes = Files.readAllBytes(png);
    assertThat(bytes.length).isGreaterThan(10_000);
    assertThat(new String(bytes, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
  }

  private static String svgOf(String dom, String id) {
    Matcher svg = Pattern.compile("<svg id=\"" + id + "\".*?</svg>", Pattern.DOTALL).matcher(dom);
    assertThat(svg.find()).isTrue();
    return svg.group();
  }

  private static String tbody(String dom, String tableId) {
    Matcher table =
        Pattern.compile("<table id=\"" + tableId + "\">.*?<tbody>(.*?)</tbody>", Pattern.DOTALL)
            .matcher(dom);
    assertThat(table.find()).as("table " + tableId).isTrue();
    return table.group(1);
  }

  private static String dumpDom(String fragment) throws Exception {
    return run(List.of("--dump-dom", page.toUri() + fragment));
  }

  static String run(List<String> arguments) throws Exception {
    return chromium.run(arguments);
  }
}
