package dev.tenbin.scoring.metrics;

import java.util.List;

/** The metrics Tenbin reports, in report order. */
public final class MetricSuite {
  private static final List<Metric> STANDARD =
      List.of(
          new Metric("ndcg@10", Metric.Kind.NDCG, 10),
          new Metric("ndcg@100", Metric.Kind.NDCG, 100),
          new Metric("recall@10", Metric.Kind.RECALL, 10),
          new Metric("recall@100", Metric.Kind.RECALL, 100),
          new Metric("precision@10", Metric.Kind.PRECISION, 10),
          new Metric("accuracy@1", Metric.Kind.SUCCESS, 1),
          new Metric("accuracy@10", Metric.Kind.SUCCESS, 10),
          new Metric("accuracy@100", Metric.Kind.SUCCESS, 100),
          new Metric("mrr@10", Metric.Kind.RECIPROCAL_RANK, 10),
          new Metric("map@100", Metric.Kind.AVERAGE_PRECISION, 100));

  private MetricSuite() {}

  /**
   * ndcg@10, ndcg@100, recall@10, recall@100, precision@10, accuracy@1, accuracy@10, accuracy@100,
   * mrr@10 and map@100: {@code trec_eval}'s ndcg_cut.10, ndcg_cut.100, recall.10, recall.100, P.10,
   * success.1, success.10, success.100, recip_rank cut at 10, and map_cut.100.
   *
   * <p>precision@10 came after the others, within scoring revision 1: it adds a value to new cells
   * and changes none of the nine (cells stored before it have no precision@10; reports leave such
   * cells out of a precision@10 leaderboard).
   */
  public static List<Metric> standard() {
    return STANDARD;
  }
}
