package dev.tenbin.scoring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import org.junit.jupiter.api.Test;

class MetricSuiteTest {
  @Test
  void standardSuiteNamesTheTenMetricsInReportOrder() {
    assertThat(MetricSuite.standard())
        .extracting(Metric::name, Metric::kind, Metric::cutoff)
        .containsExactly(
            tuple("ndcg@10", Metric.Kind.NDCG, 10),
            tuple("ndcg@100", Metric.Kind.NDCG, 100),
            tuple("recall@10", Metric.Kind.RECALL, 10),
            tuple("recall@100", Metric.Kind.RECALL, 100),
            tuple("precision@10", Metric.Kind.PRECISION, 10),
            tuple("accuracy@1", Metric.Kind.SUCCESS, 1),
            tuple("accuracy@10", Metric.Kind.SUCCESS, 10),
            tuple("accuracy@100", Metric.Kind.SUCCESS, 100),
            tuple("mrr@10", Metric.Kind.RECIPROCAL_RANK, 10),
            tuple("map@100", Metric.Kind.AVERAGE_PRECISION, 100));
  }

  @Test
  void cutoffsMustBePositive() {
    assertThatThrownBy(() -> new Metric("ndcg@0", Metric.Kind.NDCG, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cutoff");
  }

  @Test
  void scoresMustBeNumbers() {
    assertThatThrownBy(() -> new ScoredDoc("d", Double.NaN)).hasMessageContaining("NaN");
  }
}
