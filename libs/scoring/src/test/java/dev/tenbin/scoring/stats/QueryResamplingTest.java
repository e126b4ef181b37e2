package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class QueryResamplingTest {
  private static List<Map<String, Double>> queries(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Map<String, Double>> perQuery = new ArrayList<>();
    for (int q = 0; q < n; q++) {
      perQuery.add(Map.of("ndcg@10", random.nextDouble(), "recall@100", random.nextDouble()));
    }
    return perQuery;
  }

  @Test
  void theSameValuesDrawsAndSeedGiveTheSameIntervalsAndAnotherSeedOthers() {
    List<Map<String, Double>> perQuery = queries(50, 3);
    Map<String, Interval> first = QueryResampling.meanIntervals(perQuery, 500, 15, 0.95);
    assertThat(QueryResampling.meanIntervals(perQuery, 500, 15, 0.95)).isEqualTo(first);
    assertThat(QueryResampling.meanIntervals(perQuery, 500, 16, 0.95)).isNotEqualTo(first);
    assertThat(first).containsOnlyKeys("ndcg@10", "recall@100");
  }

  @Test
  void theIntervalHoldsTheMeanAndNarrowsWithMoreQueriesAndALowerLevel() {
    List<Map<String, Double>> few = queries(40, 5);
    double mean = few.stream().mapToDouble(q -> q.get("ndcg@10")).average().orElseThrow();
    Interval wide = QueryResampling.meanIntervals(few, 1_000, 15, 0.95).get("ndcg@10");
    assertThat(wide.low()).isLessThan(mean);
    assertThat(wide.high()).isGreaterThan(mean);
    Interval narrower = QueryResampling.meanIntervals(few, 1_000, 15, 0.5).get("ndcg@10");
    assertThat(narrower.high() - narrower.low()).isLessThan(wide.high() - wide.low());
    Interval many =
        QueryResampling.meanIntervals(queries(1_000, 5), 1_000, 15, 0.95).get("ndcg@10");
    assertThat(many.high() - many.low()).isLessThan(wide.high() - wide.low());
  }

  @Test
  void aMetricMissingFromAQueryGetsNoIntervalAndNoQueriesOrDrawsGiveNone() {
    List<Map<String, Double>> perQuery = new ArrayList<>(queries(10, 7));
    perQuery.add(Map.of("ndcg@10", 0.5));
    assertThat(QueryResampling.meanIntervals(perQuery, 100, 15, 0.95)).containsOnlyKeys("ndcg@10");
    assertThat(QueryResampling.meanIntervals(List.of(), 100, 15, 0.95)).isEmpty();
    assertThat(QueryResampling.meanIntervals(perQuery, 0, 15, 0.95)).isEmpty();
  }
}
