package dev.tenbin.eval.leaderboard;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.store.CellRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rank interval column and the tied-for-first marker and line in the Markdown, HTML and JSON
 * leaderboards, with their legend; the JSON field names are pinned.
 */
class RankIntervalReportTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One task of 6 queries. a and b each win queries the other loses (both tied for first: rank
   * intervals 1–2, see the aggregate test's enumeration), c is third in every draw; d lacks the
   * task's cell in another task and stays unranked.
   */
  private static Leaderboard board() {
    double[][] perQuery = {
      {1.0, 1.0, 1.0, 0.5, 0.0, 1.0},
      {0.5, 1.0, 0.0, 1.0, 1.0, 0.5},
      {0.0, 0.0, 0.0, 0.0, 0.0, 0.5}
    };
    List<String> systems = List.of("dense:a", "dense:b", "dense:c");
    List<CellRecord> cells = new ArrayList<>();
    for (int s = 0; s < 3; s++) {
      double mean = Arrays.stream(perQuery[s]).average().orElseThrow();
      cells.add(cell("bench", "t0", systems.get(s), "base", mean).queryNdcg10(perQuery[s]).build());
    }
    return Leaderboard.of(cells, LeaderboardOptions.defaults());
  }

  private static String mainTable(String markdown) {
    return markdown.substring(0, markdown.indexOf("## Per task"));
  }

  @Test
  void theJsonHoldsEachRowsRankIntervalWhetherItIsTiedForFirstAndTheTiedRows() throws Exception {
    Leaderboard board = board();
    JsonNode json = JSON.readTree(ReportFormat.JSON.render(board));

    JsonNode rows = json.get("rows");
    assertThat(rows.get(0).get("id").asText()).startsWith("dense:a/");
    assertThat(rows.get(0).get("rank_interval").toString()).isEqualTo("[1,2]");
    assertThat(rows.get(0).get("tied_for_first").asBoolean()).isTrue();
    assertThat(rows.get(1).get("rank_interval").toString()).isEqualTo("[1,2]");
    assertThat(rows.get(1).get("tied_for_first").asBoolean()).isTrue();
    assertThat(rows.get(2).get("rank_interval").toString()).isEqualTo("[3,3]");
    assertThat(rows.get(2).get("tied_for_first").asBoolean()).isFalse();
    assertThat(json.get("tied_for_first").toString())
        .isEqualTo(
            "[\""
                + rows.get(0).get("id").asText()
                + "\",\""
                + rows.get(1).get("id").asText()
                + "\"]");
    assertThat(json.get("rank_interval_note").asText())
        .contains("rank 95%: central 95% of the row's rank over the draws P(swap next) uses")
        .contains("tied for first: rank 95% includes 1");
  }

  @Test
  void theMarkdownAndHtmlTablesShowTheRankIntervalWithTheMarkAndTheOneLineSummary() {
    Leaderboard board = board();
    String a = board.ranked().get(0).key().id();
    String b = board.ranked().get(1).key().id();
    String line = "Tied for first (rank 95% includes 1): " + a + ", " + b + ".";

    String md = MarkdownReport.render(board, List.of());
    assertThat(mainTable(md))
        .contains("| rank 95% |", "| 1–2 ★ |", "| 3–3 |")
        .contains(
            "★ tied for first: rank 95% includes 1 (ranked first in at least 2.5% of the draws)")
        .contains(line);
    assertThat(mainTable(md)).doesNotContain("3–3 ★");

    String html = HtmlReport.render(board);
    assertThat(html)
        .contains("<th>rank 95%</th>", "<td class=\"num\">1–2 ★</td>", "<td class=\"num\">3–3</td>")
        .contains("<p id=\"tied-first\">" + Html.escape(line) + "</p>")
        .contains("'Rank 95%'");
  }

  @Test
  void theBradleyTerryViewIsATableInMarkdownAndHtmlAndFieldsInJson() throws Exception {
    Leaderboard board = board();
    var preference = board.preference();
    var top = board.ranked().getFirst();

    JsonNode json = JSON.readTree(ReportFormat.JSON.render(board));
    JsonNode first = json.get("rows").get(0);
    assertThat(first.get("bt_strength").asDouble())
        .isEqualTo(preference.strengths().get(top.key()));
    assertThat(first.get("bt_interval").get(0).asDouble())
        .isEqualTo(preference.intervals().get(top.key()).low());
    assertThat(first.get("bt_interval").get(1).asDouble())
        .isEqualTo(preference.intervals().get(top.key()).high());
    JsonNode bt = json.get("bradley_terry");
    assertThat(bt.get("resampled").asText()).isEqualTo("queries");
    assertThat(bt.get("draws").asInt()).isEqualTo(LeaderboardOptions.defaults().bootstrapDraws());
    assertThat(bt.get("draws_without_fit").asInt()).isEqualTo(preference.drawsWithoutFit());
    assertThat(bt.get("note").asText())
        .contains(
            "MM algorithm (Hunter 2004)", "a tie counts half", "95% CI: percentile bootstrap");

    String md = MarkdownReport.render(board, List.of());
    assertThat(md)
        .contains("## Pairwise preference (Bradley–Terry)", "| BT θ | 95% CI (θ) |")
        .contains(Numbers.delta(preference.strengths().get(top.key())));
    assertThat(HtmlReport.render(board)).contains("<table id=\"preference\">", "<th>BT θ</th>");
  }

  @Test
  void aRowAheadOnEveryQueryIsTheOnlyOneTiedForFirst() throws Exception {
    List<CellRecord> cells =
        List.of(
            cell("bench", "t0", "dense:a", "base", 0.9).queryNdcg10(1.0, 1.0, 0.7).build(),
            cell("bench", "t0", "dense:b", "base", 0.5).queryNdcg10(0.6, 0.5, 0.4).build());
    Leaderboard board = Leaderboard.of(cells, LeaderboardOptions.defaults());

    JsonNode json = JSON.readTree(ReportFormat.JSON.render(board));
    // a beats b on every query: no finite Bradley–Terry fit, so no such view
    assertThat(json.get("bradley_terry").isNull()).isTrue();
    assertThat(json.get("rows").get(0).get("bt_strength").isNull()).isTrue();
    assertThat(MarkdownReport.render(board, List.of())).doesNotContain("Bradley–Terry");
    assertThat(json.get("tied_for_first")).hasSize(1);
    assertThat(json.get("tied_for_first").get(0).asText()).startsWith("dense:a/");
    assertThat(MarkdownReport.render(board, List.of()))
        .contains("| 1–1 ★ |", "| 2–2 |", "Tied for first (rank 95% includes 1): dense:a/");
  }

  @Test
  void withoutPerQueryValuesBelowFiveTasksThereIsNoRankIntervalLegendOrLine() throws Exception {
    List<CellRecord> cells =
        List.of(
            cell("bench", "t0", "dense:a", "base", 0.9).build(),
            cell("bench", "t1", "dense:a", "base", 0.8).build(),
            cell("bench", "t0", "dense:b", "base", 0.3).build(),
            cell("bench", "t1", "dense:b", "base", 0.4).build());
    Leaderboard board = Leaderboard.of(cells, LeaderboardOptions.defaults());

    JsonNode json = JSON.readTree(ReportFormat.JSON.render(board));
    assertThat(json.get("tied_for_first").isNull()).isTrue();
    assertThat(json.get("rank_interval_note").asText()).isEmpty();
    for (JsonNode row : json.get("rows")) {
      assertThat(row.get("rank_interval").isNull()).isTrue();
      assertThat(row.get("tied_for_first").isNull()).isTrue();
    }
    String md = MarkdownReport.render(board, List.of());
    assertThat(md).doesNotContain("Tied for first", "★");
    assertThat(HtmlReport.render(board)).doesNotContain("id=\"tied-first\"");
  }
}
