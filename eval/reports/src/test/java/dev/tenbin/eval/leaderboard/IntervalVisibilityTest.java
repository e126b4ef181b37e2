package dev.tenbin.eval.leaderboard;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which intervals a leaderboard shows, by its number of tasks, in every output format: the task
 * bootstrap from 5 tasks, the query bootstrap below (of the single task, or of every task's
 * queries), nothing (with a note) when cells stored no per-query values.
 */
class IntervalVisibilityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** 40 query values: {@code ones} of them 1, the rest 0. */
  private static double[] queries(int ones) {
    double[] values = new double[40];
    Arrays.fill(values, 0, ones, 1.0);
    return values;
  }

  private static CellRecord scored(String task, String system, double[] perQuery) {
    double mean = Arrays.stream(perQuery).average().orElseThrow();
    return cell("bench", task, system, "base", mean).queryNdcg10(perQuery).build();
  }

  /**
   * Three systems on {@code tasks} tasks: a far ahead, b and c close together, each ahead of the
   * other on every other task.
   */
  private static Leaderboard board(int tasks) {
    List<CellRecord> cells = new ArrayList<>();
    for (int t = 0; t < tasks; t++) {
      cells.add(scored("t" + t, "dense:a", queries(36 + t % 2)));
      cells.add(scored("t" + t, "dense:b", queries(12 + 4 * (t % 2))));
      cells.add(scored("t" + t, "dense:c", queries(16 - 4 * (t % 2))));
    }
    return Leaderboard.of(cells, LeaderboardOptions.defaults().withBootstrapDraws(500));
  }

  private static JsonNode json(Leaderboard board) throws Exception {
    return JSON.readTree(ReportFormat.JSON.render(board));
  }

  private static String mainTable(String markdown) {
    return markdown.substring(0, markdown.indexOf("## Per task"));
  }

  @Test
  void withTwoTasksTheIntervalsSwapsAndGroupsComeFromTheQueriesOfEachTask() throws Exception {
    Leaderboard board = board(2);

    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.QUERIES);
    List<LeaderboardRow> ranked = board.ranked();
    for (LeaderboardRow row : ranked) {
      assertThat(row.macroInterval()).isNull();
      assertThat(row.queryInterval().contains(row.macro())).isTrue();
      assertThat(board.interval(row)).isEqualTo(row.queryInterval());
    }
    assertThat(ranked.get(0).swapWithNext()).isEqualTo(0.0);
    assertThat(ranked.get(1).swapWithNext()).isBetween(0.05, 0.95);
    assertThat(ranked.get(2).swapWithNext()).isNull();
    // a (36 and 37 of 40) is far above b and c (14 of 40 on average each), which overlap
    assertThat(ranked).extracting(LeaderboardRow::statisticalGroup).containsExactly("A", "B", "B");
    String note = "95% CI and P(swap next): bootstrap over the queries of each of the 2 tasks";

    String md = MarkdownReport.render(board, List.of());
    assertThat(md).contains(note);
    assertThat(mainTable(md)).contains("95% CI (queries)");
    assertThat(HtmlReport.render(board)).contains(note);

    JsonNode json = json(board);
    assertThat(json.get("interval_source").asText()).isEqualTo("queries");
    assertThat(json.get("interval_note").asText()).contains(note);
    assertThat(json.get("rows").get(0).get("query_interval").get(0).asDouble())
        .isEqualTo(ranked.get(0).queryInterval().low());
  }

  @Test
  void withTwoTasksAndNoStoredQueriesNoIntervalSwapOrGroupIsShownAndTheReportsSayWhy()
      throws Exception {
    List<CellRecord> cells = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      cells.add(cell("bench", "t" + t, "dense:a", "base", 0.9).build());
      cells.add(cell("bench", "t" + t, "dense:b", "base", 0.3).build());
    }
    Leaderboard board = Leaderboard.of(cells, LeaderboardOptions.defaults());

    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.NONE);
    for (LeaderboardRow row : board.rows()) {
      assertThat(row.swapWithNext()).isNull();
      assertThat(row.queryInterval()).isNull();
      assertThat(row.statisticalGroup()).isNull();
      assertThat(board.interval(row)).isNull();
    }
    String note = "95% CI, groups, P(swap next) and rank 95% are hidden: 2 tasks are too few";
    String md = MarkdownReport.render(board, List.of());
    assertThat(md).contains(note);
    assertThat(mainTable(md)).doesNotContainPattern("\\d–\\d");
    assertThat(HtmlReport.render(board)).contains(note);
    JsonNode json = json(board);
    assertThat(json.get("interval_source").asText()).isEqualTo("none");
    for (JsonNode row : json.get("rows")) {
      assertThat(row.get("swap_with_next").isNull()).isTrue();
      assertThat(row.get("query_interval").isNull()).isTrue();
      assertThat(row.get("statistical_group").isNull()).isTrue();
    }
  }

  @Test
  void aSingleTaskShowsItsQueryBootstrapIntervalAndGroupsByIt() throws Exception {
    Leaderboard board = board(1);

    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.QUERIES);
    List<LeaderboardRow> ranked = board.ranked();
    assertThat(ranked).extracting(r -> r.key().system().model()).containsExactly("a", "c", "b");
    for (LeaderboardRow row : ranked) {
      CellRecord cell = board.matrix().cells(row.key()).getFirst();
      Interval perQuery = QueryBootstrap.of(cell).get("ndcg@10");
      assertThat(row.queryInterval().low()).isCloseTo(100 * perQuery.low(), within(1e-9));
      assertThat(row.queryInterval().high()).isCloseTo(100 * perQuery.high(), within(1e-9));
      assertThat(row.queryInterval().contains(row.macro())).isTrue();
      assertThat(row.macroInterval()).isNull();
    }
    // P(swap next) from a bootstrap over the same queries for every row: c scores at least b's on
    // every query, so a draw only ties them (none of c's 4 extra ones drawn: 0.9^40, half a swap)
    assertThat(ranked.get(0).swapWithNext()).isEqualTo(0.0);
    assertThat(ranked.get(1).swapWithNext()).isBetween(0.0, 0.02);
    assertThat(ranked.get(2).swapWithNext()).isNull();
    // a: 36/40 is far above c (16/40) and b (12/40), which overlap
    assertThat(ranked).extracting(LeaderboardRow::statisticalGroup).containsExactly("A", "B", "B");

    String md = MarkdownReport.render(board, List.of());
    assertThat(mainTable(md)).contains("95% CI (queries)", "| group |");
    Interval top = ranked.getFirst().queryInterval();
    assertThat(mainTable(md))
        .contains(String.format(java.util.Locale.ROOT, "%.2f–%.2f", top.low(), top.high()));
    assertThat(md)
        .contains("95% CI: bootstrap over the queries of the task (1,000 draws, seed 15)");

    String html = HtmlReport.render(board);
    assertThat(html).contains("95% CI (queries)", "bootstrap over the queries of the task");

    JsonNode json = json(board);
    assertThat(json.get("interval_source").asText()).isEqualTo("queries");
    JsonNode first = json.get("rows").get(0);
    assertThat(first.get("query_interval").get(0).asDouble()).isEqualTo(top.low());
    assertThat(first.get("statistical_group").asText()).isEqualTo("A");
    assertThat(first.get("swap_with_next").asDouble()).isEqualTo(0.0);
  }

  @Test
  void fromFiveTasksTheTaskBootstrapIntervalsSwapsAndGroupsAreShown() throws Exception {
    Leaderboard board = board(5);

    assertThat(board.intervalSource()).isEqualTo(Leaderboard.IntervalSource.TASKS);
    List<LeaderboardRow> ranked = board.ranked();
    assertThat(ranked.getFirst().macroInterval()).isNotNull();
    assertThat(ranked.getFirst().swapWithNext()).isNotNull();
    assertThat(ranked.getFirst().queryInterval()).isNull();
    assertThat(ranked).extracting(LeaderboardRow::statisticalGroup).containsExactly("A", "B", "B");
    assertThat(board.interval(ranked.getFirst())).isEqualTo(ranked.getFirst().macroInterval());

    assertThat(mainTable(MarkdownReport.render(board, List.of())))
        .contains("95% CI (macro)", "| group |")
        .doesNotContain("hidden");
    assertThat(json(board).get("interval_source").asText()).isEqualTo("tasks");
    assertThat(json(board).get("rows").get(1).get("statistical_group").asText()).isEqualTo("B");
  }
}
