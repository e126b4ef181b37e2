package dev.tenbin.eval.leaderboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Points of equal cost and quality stay apart on the chart, and a table lists them beside it. */
class ParetoOverlapTest {
  private static ParetoFrontier.Point p(String id, double cost, double quality) {
    return new ParetoFrontier.Point(id, id, cost, quality, false);
  }

  private static List<String> centres(String svg) {
    Matcher circle = Pattern.compile("<circle [^>]*cx=\"([^\"]+)\" cy=\"([^\"]+)\"").matcher(svg);
    List<String> out = new ArrayList<>();
    while (circle.find()) {
      out.add(circle.group(1) + "," + circle.group(2));
    }
    return out;
  }

  @Test
  void overlappingPointsAreMovedApartTheSameWayEveryTime() {
    List<ParetoFrontier.Point> points =
        List.of(
            p("a/base", 120, 50), p("a/int8", 120, 50), p("a/binary", 120, 50), p("b", 900, 58));

    String svg = ParetoChart.svg("c", "t", "µs", "q", points);

    assertThat(centres(svg)).hasSize(4).doesNotHaveDuplicates();
    assertThat(ParetoChart.svg("c", "t", "µs", "q", points)).isEqualTo(svg);
    // Apart points are not moved: b sits where it would without the others.
    String alone =
        ParetoChart.svg("c", "t", "µs", "q", List.of(p("a/base", 120, 50), p("b", 900, 58)));
    assertThat(centres(svg)).contains(centres(alone).get(1));
  }

  @Test
  void theTableListsEveryPointCheapestFirstWithItsFrontierFlag() {
    String table =
        ParetoChart.table(
            "t", "µs", "q", List.of(p("slow", 900, 58), p("x<y", 120, 50), p("worse", 950, 40)));

    assertThat(table).startsWith("<table class=\"pareto-table\" id=\"t\">");
    assertThat(table.indexOf("x&lt;y")).isLessThan(table.indexOf("slow"));
    assertThat(table.indexOf("slow")).isLessThan(table.indexOf("worse"));
    assertThat(table)
        .contains("<td>slow</td><td class=\"num\">900</td><td class=\"num\">58.00</td><td>✓</td>");
    assertThat(table)
        .contains("<td>worse</td><td class=\"num\">950</td><td class=\"num\">40.00</td><td></td>");
  }

  @Test
  void theHtmlReportHasTheLatencyTableBesideTheChart() {
    var board =
        dev.tenbin.eval.aggregate.Leaderboard.of(
            SyntheticJob.cells(),
            dev.tenbin.eval.aggregate.LeaderboardOptions.defaults().withBootstrapDraws(50));
    String html = HtmlReport.render(board, List.of());

    int figure = html.indexOf("<figure id=\"figure-latency\">");
    assertThat(figure).isPositive();
    assertThat(html.indexOf("id=\"chart-latency-table\"", figure))
        .isGreaterThan(figure)
        .isLessThan(html.indexOf("</figure>", figure));
  }
}
