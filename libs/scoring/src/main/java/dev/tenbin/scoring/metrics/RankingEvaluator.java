package dev.tenbin.scoring.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Evaluates rankings against qrels as {@code trec_eval -c} does: every listed query counts, a query
 * absent from the run scores 0 on every metric, and means are plain arithmetic means over the
 * listed queries. Each metric also gets its tie-aware value (see {@link TieAwareEvaluator}).
 */
public final class RankingEvaluator {
  private final List<Metric> metrics;

  public RankingEvaluator(List<Metric> metrics) {
    this.metrics = List.copyOf(metrics);
  }

  /** The evaluator of {@link MetricSuite#standard()}. */
  public static RankingEvaluator standard() {
    return new RankingEvaluator(MetricSuite.standard());
  }

  /**
   * @param qrels the judgments
   * @param run query id to ranking
   * @param queryIds the queries to average over (a repeated id counts once)
   * @param order how each ranking is ordered before it is measured
   */
  public Evaluation evaluate(
      Qrels qrels, Map<String, List<ScoredDoc>> run, Collection<String> queryIds, RunOrder order) {
    List<String> ids = List.copyOf(new LinkedHashSet<>(queryIds));
    // Queries are independent: measured in parallel, gathered in the order of the ids, so the
    // result (and every sum below) is the same as one by one.
    QueryValues[] measured = new QueryValues[ids.size()];
    IntStream.range(0, ids.size())
        .parallel()
        .forEach(q -> measured[q] = measure(qrels, run, ids.get(q), order));
    Map<String, Map<String, Double>> perQuery = new LinkedHashMap<>();
    Map<String, Map<String, TieAwareValue>> perQueryTieAware = new LinkedHashMap<>();
    for (int q = 0; q < ids.size(); q++) {
      perQuery.put(ids.get(q), measured[q].values());
      perQueryTieAware.put(ids.get(q), measured[q].tieAware());
    }
    Map<String, Double> means = new LinkedHashMap<>();
    Map<String, TieAwareValue> tieAware = new LinkedHashMap<>();
    for (Metric metric : metrics) {
      List<TieAwareValue> tieValues = new ArrayList<>(perQuery.size());
      double sum = 0;
      for (String queryId : perQuery.keySet()) {
        sum += perQuery.get(queryId).get(metric.name());
        tieValues.add(perQueryTieAware.get(queryId).get(metric.name()));
      }
      means.put(metric.name(), perQuery.isEmpty() ? 0 : sum / perQuery.size());
      tieAware.put(metric.name(), TieAwareValue.mean(tieValues));
    }
    return new Evaluation(
        perQuery.size(),
        Collections.unmodifiableMap(means),
        Collections.unmodifiableMap(tieAware),
        Collections.unmodifiableMap(perQuery),
        Collections.unmodifiableMap(perQueryTieAware));
  }

  private record QueryValues(Map<String, Double> values, Map<String, TieAwareValue> tieAware) {}

  private QueryValues measure(
      Qrels qrels, Map<String, List<ScoredDoc>> run, String queryId, RunOrder order) {
    List<ScoredDoc> ranking = order.apply(run.getOrDefault(queryId, List.of()));
    Map<String, Integer> judgments = qrels.judgments(queryId);
    int[] grades = new int[ranking.size()];
    for (int i = 0; i < grades.length; i++) {
      grades[i] = judgments.getOrDefault(ranking.get(i).docId(), 0);
    }
    JudgedQuery judged = new JudgedQuery(judgments.values());
    TieGroups groups = TieGroups.of(ranking);
    Map<String, Double> values = new LinkedHashMap<>();
    Map<String, TieAwareValue> tieValues = new LinkedHashMap<>();
    List<TieAwareValue> tieAware = TieAwareEvaluator.evaluate(metrics, grades, groups, judged);
    for (int m = 0; m < metrics.size(); m++) {
      Metric metric = metrics.get(m);
      values.put(metric.name(), metric.compute(grades, judged));
      tieValues.put(metric.name(), tieAware.get(m));
    }
    return new QueryValues(
        Collections.unmodifiableMap(values), Collections.unmodifiableMap(tieValues));
  }
}
