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
 * The paired tests as the Markdown, HTML and JSON reports show them: a p-value no draw reached as
 * the bound it is, pairs of identical rows said apart from the detectable effect, and a single
 * system without an empty section.
 */
class PairedReportTest {
  private static final int QUERIES = 30;
  private static final int PERMUTATIONS = 2_000;

  private static double[] values(double shift) {
    double[] values = new double[QUERIES];
    for (int q = 0; q < QUERIES; q++) {
      values[q] = 0.3 + 0.02 * ((7 * q) % 25) + shift + 0.003 * (q % 4);
    }
    return values;
  }

  private static CellRecord stored(String system, double[] values) {
    return cell("bench", "t0", system, "base", Arrays.stream(values).average().orElseThrow())
        .queryNdcg10(values)
        .build();
  }

  private static Leaderboard board(List<CellRecord> cells) {
    return Leaderboard.of(cells, LeaderboardOptions.defaults().withPermutations(PERMUTATIONS));
  }

  @Test
  void aRandomizationPNoDrawReachedIsShownAsItsBoundInMarkdownAndFlaggedInJson() throws Exception {
    double[] strong = values(0.2);
    double[] weak = values(0);
    for (int q = 0; q < QUERIES; q++) {
      weak[q] -= 0.01 * (q % 3);
    }
    Leaderboard board = board(List.of(stored("dense:strong", strong), stored("dense:weak", weak)));

    String markdown = MarkdownReport.render(board, List.of());
    String html = HtmlReport.render(board);
    JsonNode pair =
        new ObjectMapper()
            .readTree(ReportFormat.JSON.render(board))
            .get("paired_tests")
            .get("tasks")
            .get(0)
            .get("pairs")
            .get(0);

    assertThat(markdown).contains("| ≤ 1/2001 |").contains("p rand ≤ 1/(n+1)");
    assertThat(html).contains("<td class=\"num\">≤ 1/2001</td>").contains("p rand ≤ 1/(n+1)");
    assertThat(pair.get("randomization_p").asDouble()).isEqualTo(1.0 / (PERMUTATIONS + 1));
    assertThat(pair.get("randomization_p_at_limit").asBoolean()).isTrue();
    assertThat(pair.get("identical").asBoolean()).isFalse();
  }

  @Test
  void identicalRowsAreNamedAndLeftOutOfTheDetectableEffect() throws Exception {
    double[] strong = values(0.1);
    double[] weak = values(0);
    for (int q = 0; q < QUERIES; q++) {
      weak[q] += q % 2 == 0 ? 0.07 : -0.12;
    }
    List<CellRecord> two = List.of(stored("dense:strong", strong), stored("dense:weak", weak));
    List<CellRecord> withCopy = new ArrayList<>(two);
    withCopy.add(stored("dense:copy", strong.clone()));

    Leaderboard board = board(withCopy);
    String markdown = MarkdownReport.render(board, List.of());
    JsonNode task =
        new ObjectMapper()
            .readTree(ReportFormat.JSON.render(board))
            .get("paired_tests")
            .get("tasks")
            .get(0);

    assertThat(markdown)
        .contains(
            "identical rows (every per-query difference 0), left out of the MDE: "
                + "dense:copy/base/retrieval = dense:strong/base/retrieval")
        .contains("pairs of identical rows (every difference 0) left out");
    assertThat(task.get("identical_pairs").asInt()).isEqualTo(1);
    // the copy's two pairs with weak equal strong's; only the copy-strong pair has sd 0
    assertThat(task.get("minimum_detectable_effect").asDouble())
        .isEqualTo(board(two).paired().tasks().getFirst().detectableEffect());
  }

  @Test
  void aSingleSystemHasNoEmptyPairedSectionButOneLineSayingWhy() throws Exception {
    Leaderboard board = board(List.of(stored("dense:only", values(0))));

    String markdown = MarkdownReport.render(board, List.of());
    String html = HtmlReport.render(board);
    String terminal = TerminalTable.render(board);
    JsonNode json = new ObjectMapper().readTree(ReportFormat.JSON.render(board));

    assertThat(markdown)
        .doesNotContain("Paired tests per task")
        .doesNotContain("0 pairs")
        .doesNotContain(": 0 queries")
        .contains("Paired tests need two ranked rows with per-query values on a task")
        .contains("so there is no pair");
    assertThat(terminal)
        .doesNotContain("0 pairs")
        .doesNotContain("MDE")
        .contains("Paired tests need two ranked rows with per-query values on a task");
    assertThat(html)
        .doesNotContain("Paired tests per task")
        .contains("Paired tests need two ranked rows with per-query values on a task");
    assertThat(json.get("paired_tests").isNull()).isTrue();
    assertThat(json.get("paired_tests_note").asText()).contains("no pair");
  }

  @Test
  void aTaskWithOneRowOfPerQueryValuesSaysItHasNoPairBesideATaskThatHasOne() {
    double[] strong = values(0.1);
    double[] weak = values(0);
    List<CellRecord> cells = new ArrayList<>();
    cells.add(stored("dense:strong", strong));
    cells.add(stored("dense:weak", weak));
    cells.add(cell("bench", "t1", "dense:strong", "base", 0.5).queryNdcg10(strong).build());
    // stored without per-query values on t1
    cells.add(cell("bench", "t1", "dense:weak", "base", 0.4).build());

    String markdown = MarkdownReport.render(board(cells), List.of());

    assertThat(markdown)
        .contains("Paired tests per task")
        .contains("t1 (en): no pair to test (1 row with per-query values)")
        .contains("left out, no per-query values stored: dense:weak/base/retrieval")
        .doesNotContain(": 0 queries");
  }
}
