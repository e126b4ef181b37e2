package dev.tenbin.eval.leaderboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.testing.SyntheticCells;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The "Query latency" table: when it states the queries in flight in its headers, when per row. */
class LatencyTableTest {
  private static Leaderboard board(List<CellRecord> cells) {
    return Leaderboard.of(cells, LeaderboardOptions.defaults().withBootstrapDraws(20));
  }

  private static SyntheticCells cell(String task, String system, double ndcg) {
    return SyntheticCells.cell("bench", task, system, "base", ndcg)
        .timing("query_encode_latency_us", 2_000)
        .timing("search_latency_us", 300)
        .timing("query_encode_latency_p99_us", 4_000)
        .timing("search_latency_p99_us", 600);
  }

  private static List<String> row(LatencyTable table, String system) {
    return table.rows.stream().filter(r -> r.getFirst().equals(system)).findFirst().orElseThrow();
  }

  @Test
  void rowsMeasuredWithDifferentNumbersInFlightSayEachOne() {
    List<CellRecord> cells = new ArrayList<>();
    for (String task : List.of("a", "b")) {
      cells.add(cell(task, "bm25", 0.4).concurrentLatency(4, 500, 900, 7_000).build());
      cells.add(cell(task, "dense:m", 0.5).concurrentLatency(8, 3_000, 6_000, 2_600.4).build());
    }
    // a task with 3 queries had all 3 in flight
    cells.add(cell("a", "dense:n", 0.6).concurrentLatency(3, 4_000, 8_000, 50.25).build());
    cells.add(cell("b", "dense:n", 0.6).concurrentLatency(4, 6_000, 10_000, 40.75).build());
    cells.add(cell("a", "dense:old", 0.3).build());
    cells.add(cell("b", "dense:old", 0.3).build());

    LatencyTable table = LatencyTable.of(board(cells));

    assertThat(table.header)
        .containsExactly(
            "system",
            "variant",
            "mode",
            "p50 µs",
            "p99 µs",
            "in flight",
            "p50 µs @C",
            "p99 µs @C",
            "q/s @C");
    assertThat(row(table, "bm25"))
        .containsExactly("bm25", "base", "retrieval", "2300", "4600", "4", "500", "900", "7000");
    assertThat(row(table, "dense:m").subList(5, 9)).containsExactly("8", "3000", "6000", "2600");
    assertThat(row(table, "dense:n").subList(5, 9)).containsExactly("3–4", "5000", "9000", "45.5");
    assertThat(row(table, "dense:old").subList(5, 9)).containsExactly("–", "–", "–", "–");
    assertThat(table.footnote)
        .contains("in flight: the queries in flight of the row's cells", "–: not measured");
    assertThat(table.numeric).hasSize(table.header.size());
    assertThat(MarkdownReport.render(board(cells), List.of()))
        .contains("| p50 µs | p99 µs | in flight | p50 µs @C | p99 µs @C | q/s @C |");
  }

  @Test
  void withoutConcurrentFiguresTheTableIsTheSingleQueryOne() {
    LatencyTable table =
        LatencyTable.of(
            board(List.of(cell("a", "bm25", 0.4).build(), cell("a", "dense:m", 0.5).build())));

    assertThat(table.header).containsExactly("system", "variant", "mode", "p50 µs", "p99 µs");
    assertThat(table.rows).hasSize(2);
    assertThat(table.footnote).doesNotContain("in flight", "–");
  }
}
