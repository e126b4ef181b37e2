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

  /**
   * The metrics of {@code trec_eval -m} measure specifications, in the order given, without
   * repeats: {@code P.5,10,100} (precision@k), {@code recall.k}, {@code ndcg_cut.k} (ndcg@k),
   * {@code success.k} (accuracy@k), {@code map_cut.k} (map@k), and without cut-offs {@code ndcg},
   * {@code map} and {@code recip_rank} (the whole ranking: ndcg, map, mrr). Cut-offs are positive
   * integers. Each named as Tenbin names it, so a measure reads the same in both tools' terms.
   *
   * @throws IllegalArgumentException naming the specification that is not one of these
   */
  public static List<Metric> trecEvalMeasures(List<String> measures) {
    java.util.LinkedHashMap<String, Metric> metrics = new java.util.LinkedHashMap<>();
    for (String measure : measures) {
      String spec = measure.trim();
      int dot = spec.indexOf('.');
      String family = dot < 0 ? spec : spec.substring(0, dot);
      if (dot < 0) {
        Metric whole =
            switch (family) {
              case "ndcg" -> new Metric("ndcg", Metric.Kind.NDCG, Integer.MAX_VALUE);
              case "map" -> new Metric("map", Metric.Kind.AVERAGE_PRECISION, Integer.MAX_VALUE);
              case "recip_rank" ->
                  new Metric("mrr", Metric.Kind.RECIPROCAL_RANK, Integer.MAX_VALUE);
              default -> throw unknown(spec);
            };
        metrics.putIfAbsent(whole.name(), whole);
        continue;
      }
      Cut cut = CUT_MEASURES.get(family);
      if (cut == null) {
        throw unknown(spec);
      }
      String[] cuts = spec.substring(dot + 1).split(",", -1);
      for (String cutoff : cuts) {
        if (!cutoff.matches("[1-9][0-9]{0,8}")) {
          throw new IllegalArgumentException(
              "measure " + spec + ": a cut-off is a positive integer, got '" + cutoff + "'");
        }
        int k = Integer.parseInt(cutoff);
        String name = cut.name() + "@" + k;
        metrics.putIfAbsent(name, new Metric(name, cut.kind(), k));
      }
    }
    if (metrics.isEmpty()) {
      throw new IllegalArgumentException("no measure named");
    }
    return List.copyOf(metrics.values());
  }

  /** A trec_eval measure taking cut-offs: its kind and the name Tenbin reports it under. */
  private record Cut(Metric.Kind kind, String name) {}

  private static final java.util.Map<String, Cut> CUT_MEASURES =
      java.util.Map.of(
          "P", new Cut(Metric.Kind.PRECISION, "precision"),
          "recall", new Cut(Metric.Kind.RECALL, "recall"),
          "ndcg_cut", new Cut(Metric.Kind.NDCG, "ndcg"),
          "success", new Cut(Metric.Kind.SUCCESS, "accuracy"),
          "map_cut", new Cut(Metric.Kind.AVERAGE_PRECISION, "map"));

  private static IllegalArgumentException unknown(String spec) {
    return new IllegalArgumentException(
        "unknown measure '"
            + spec
            + "': use P.K,..., recall.K,..., ndcg_cut.K,..., success.K,..., map_cut.K,...,"
            + " ndcg, map or recip_rank");
  }
}
