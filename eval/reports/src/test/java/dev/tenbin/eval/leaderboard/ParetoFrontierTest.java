package dev.tenbin.eval.leaderboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParetoFrontierTest {
  private static ParetoFrontier.Point p(String id, double cost, double quality) {
    return new ParetoFrontier.Point(id, id, cost, quality, false);
  }

  @Test
  void aPointIsOnTheFrontierWhenNothingCheaperIsAtLeastAsGood() {
    List<ParetoFrontier.Point> points =
        ParetoFrontier.of(
            List.of(
                p("big", 3072, 60),
                p("int8", 768, 59),
                p("dominated", 1536, 55),
                p("binary", 48, 53),
                p("same-cost-worse", 48, 50)));

    assertThat(points)
        .filteredOn(ParetoFrontier.Point::frontier)
        .extracting(ParetoFrontier.Point::id)
        .containsExactly("binary", "int8", "big");
    assertThat(points).extracting(ParetoFrontier.Point::cost).isSorted();
  }

  @Test
  void theChartHighlightsAndConnectsFrontierPointsOnALogAxis() {
    String svg =
        ParetoChart.svg(
            "c",
            "t",
            "bytes per vector",
            "q",
            List.of(p("a", 48, 53), p("b", 768, 59), p("c", 1536, 55), p("d", 3072, 60)));

    assertThat(svg).startsWith("<svg id=\"c\"").endsWith("</svg>");
    assertThat(svg.split("class=\"point frontier\"", -1)).hasSize(4);
    assertThat(svg.split("class=\"point\"", -1)).hasSize(2);
    assertThat(svg)
        .contains("<polyline class=\"frontier-line\" points=\"")
        .contains("bytes per vector (log scale)");
  }

  @Test
  void narrowCostRangesUseALinearAxisAndLabelsAreEscaped() {
    String svg =
        ParetoChart.svg("c", "t", "µs", "q", List.of(p("x<y>&\"", 100, 50), p("z", 150, 55)));
    assertThat(svg)
        .doesNotContain("log scale")
        .contains("x&lt;y&gt;&amp;&quot;")
        .doesNotContain("x<y");
  }

  @Test
  void theMemoryChartPlotsStoredBytesSoARescoreCountsItsFloatVectors() {
    var cells =
        java.util.List.of(
            dev.tenbin.eval.testing.SyntheticCells.cell("b", "t", "dense:m", "int8", 0.5)
                .fact("dimension", 384)
                .fact("bytes_per_vector", 384)
                .fact("scanned_bytes_per_vector", 384)
                .fact("stored_bytes_per_vector", 384)
                .build(),
            dev.tenbin.eval.testing.SyntheticCells.cell("b", "t", "dense:m", "int8_rescore", 0.6)
                .fact("dimension", 384)
                .fact("bytes_per_vector", 384)
                .fact("scanned_bytes_per_vector", 384)
                .fact("stored_bytes_per_vector", 384 + 4 * 384)
                .build());
    var board =
        dev.tenbin.eval.aggregate.Leaderboard.of(
            cells, dev.tenbin.eval.aggregate.LeaderboardOptions.defaults());
    String svg = LeaderboardCharts.bytesPerVector(board);
    assertThat(svg)
        .containsPattern(
            "dense:m/int8_rescore: quality [0-9.]+, stored bytes per document "
                + java.util.regex.Pattern.quote(Numbers.compact(1920.0))
                + "<")
        .containsPattern(
            "dense:m/int8: quality [0-9.]+, stored bytes per document "
                + java.util.regex.Pattern.quote(Numbers.compact(384.0))
                + "<");
  }
}
