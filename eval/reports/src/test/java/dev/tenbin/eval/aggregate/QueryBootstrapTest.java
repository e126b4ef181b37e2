package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

class QueryBootstrapTest {
  /** n queries scoring 1 with probability about 0.6 (a fixed pattern), else 0 or 0.5. */
  private static List<Map<String, Double>> queries(int n) {
    List<Map<String, Double>> perQuery = new ArrayList<>();
    for (int q = 0; q < n; q++) {
      double ndcg = (7 * q) % 10 < 6 ? 1.0 : (q % 2 == 0 ? 0.0 : 0.5);
      perQuery.add(Map.of("ndcg@10", ndcg, "recall@100", Math.min(1, ndcg + 0.25)));
    }
    return perQuery;
  }

  private static double mean(List<Map<String, Double>> perQuery, String metric) {
    return perQuery.stream().mapToDouble(q -> q.get(metric)).average().orElseThrow();
  }

  @Test
  void theSameSeedGivesTheSameIntervalsAndAnotherSeedOthers() {
    List<Map<String, Double>> perQuery = queries(60);

    Map<String, Interval> first = QueryBootstrap.intervals(perQuery, 1_000, 15);

    assertThat(QueryBootstrap.intervals(perQuery, 1_000, 15)).isEqualTo(first);
    assertThat(QueryBootstrap.intervals(perQuery)).isEqualTo(first);
    assertThat(QueryBootstrap.intervals(perQuery, 1_000, 16)).isNotEqualTo(first);
    assertThat(first).containsOnlyKeys("ndcg@10", "recall@100");
  }

  @Test
  void everyIntervalContainsItsMeanAndIsNotAPoint() {
    List<Map<String, Double>> perQuery = queries(60);
    QueryBootstrap.intervals(perQuery)
        .forEach(
            (metric, interval) -> {
              assertThat(interval.contains(mean(perQuery, metric))).as(metric).isTrue();
              assertThat(interval.low()).as(metric).isLessThan(interval.high());
            });
  }

  @Test
  void moreQueriesOfTheSameSpreadGiveANarrowerInterval() {
    Interval few = QueryBootstrap.intervals(queries(40)).get("ndcg@10");
    Interval many = QueryBootstrap.intervals(queries(1_000)).get("ndcg@10");

    double fewWidth = few.high() - few.low();
    double manyWidth = many.high() - many.low();
    // the standard error shrinks as 1/sqrt(n): 25 times the queries, about a fifth of the width
    assertThat(manyWidth).isLessThan(fewWidth / 3);
    assertThat(many.contains(mean(queries(1_000), "ndcg@10"))).isTrue();
  }

  @Test
  void queriesThatAllScoreTheSameGiveAPointInterval() {
    List<Map<String, Double>> perQuery =
        DoubleStream.generate(() -> 0.7).limit(30).mapToObj(v -> Map.of("ndcg@10", v)).toList();
    Interval interval = QueryBootstrap.intervals(perQuery).get("ndcg@10");
    assertThat(interval.low())
        .isEqualTo(interval.high())
        .isCloseTo(0.7, org.assertj.core.api.Assertions.within(1e-12));
  }

  @Test
  void aMetricMissingFromAQueryGetsNoIntervalAndNoQueriesGiveNone() {
    List<Map<String, Double>> perQuery = new ArrayList<>(queries(10));
    perQuery.add(Map.of("ndcg@10", 0.5));

    assertThat(QueryBootstrap.intervals(perQuery)).containsOnlyKeys("ndcg@10");
    assertThat(QueryBootstrap.intervals(List.of())).isEmpty();
  }

  @Test
  void storedIntervalsReadBackAndACellWithoutThemGetsTheSameComputedOnRead() {
    CellRecord old =
        cell("b", "t", "dense:a", "base", 0.5).queryNdcg10(1, 0, 0.5, 1, 0.25, 0, 1, 0.75).build();
    Map<String, Interval> onRead = QueryBootstrap.of(old);

    CellRecord stored =
        new CellRecord(
            old.formatVersion(),
            old.fingerprint(),
            old.key(),
            old.versions(),
            old.facts(),
            old.metrics(),
            old.tieAware(),
            old.timings(),
            Map.of(QueryBootstrap.KEY, QueryBootstrap.toDiagnostic(onRead)),
            List.of(),
            old.finishedAt());

    assertThat(onRead).containsOnlyKeys("ndcg@10");
    assertThat(QueryBootstrap.of(stored)).isEqualTo(onRead);
    assertThat(QueryBootstrap.of(cell("b", "t", "dense:a", "base", 0.5).build())).isEmpty();
  }
}
