package dev.tenbin.eval.leaderboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionBin;
import dev.tenbin.eval.positions.PositionBucket;
import dev.tenbin.eval.positions.PositionsView;
import dev.tenbin.eval.testing.SyntheticCells;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PositionsHtmlTest {
  private static PositionsView.Row row(String task, String model, double psi) {
    List<PositionBin> bins = new ArrayList<>();
    for (int b = 0; b < 4; b++) {
      bins.add(new PositionBin(b, 10, 0.5 + 0.1 * b, 1.0));
    }
    PositionBucket bucket = new PositionBucket(0, null, 40, bins, psi, 0.1, null, null, null, null);
    return new PositionsView.Row(
        task,
        "dense:" + model,
        new PositionAnalysis("bert", null, 5, null, List.of(bucket)),
        SyntheticCells.cell("b", task, "dense:" + model, "base", 0.5).build().key());
  }

  /** Rows as the view orders them: by task, then main PSI. */
  private static List<PositionsView.Row> rows() {
    List<PositionsView.Row> rows = new ArrayList<>();
    for (int m = 0; m < 5; m++) {
      rows.add(row("flat", "m" + m, 0.05 + 0.01 * m));
    }
    for (int m = 0; m < 5; m++) {
      rows.add(row("steep", "m" + m, 0.30 + 0.05 * m));
    }
    return rows;
  }

  @Test
  void theProfilesOpenOnTheMostPositionSensitiveTask() {
    // "steep" reaches PSI 0.50, "flat" 0.09: the first four rows of "steep", indexes 5 to 8
    assertThat(PositionsHtml.startingRows(rows())).containsExactly(5, 6, 7, 8);
    StringBuilder html = new StringBuilder();
    PositionsHtml.append(html, rows());
    assertThat(html.toString().split("class=\"profile\" data-pos-row=\"", -1)).hasSize(5);
    assertThat(html)
        .contains("data-pos-row=\"5\" fill=\"none\"")
        .doesNotContain("class=\"profile\" data-pos-row=\"0\"");
  }

  @Test
  void theHeatmapsCarryAColourScale() {
    StringBuilder html = new StringBuilder();
    PositionsHtml.append(html, rows());
    String page = html.toString();
    assertThat(page).contains("id=\"heatmap-scale\"", "faded: fewer than 5 queries", "no query");
    assertThat(page.indexOf("id=\"heatmap-scale\"")).isLessThan(page.indexOf("id=\"heatmaps\""));
    // the scale's ends are the colours of nDCG@10 0 and 1
    assertThat(page)
        .contains("stop-color=\"" + PositionsHtml.colour(0) + "\"")
        .contains("stop-color=\"" + PositionsHtml.colour(1) + "\"");
  }
}
