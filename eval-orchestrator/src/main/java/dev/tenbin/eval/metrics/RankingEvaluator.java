package dev.tenbin.eval.metrics;

import dev.tenbin.eval.tieaware.TieAwareEvaluator;
import dev.tenbin.eval.tieaware.TieAwareValue;
import dev.tenbin.eval.tieaware.TieGroups;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Evaluates rankings against qrels as {@code trec_eval -c} does: every listed query counts, and a
 * query absent from the run scores 0 on every metric. Means are plain arithmetic means.
 */
public final class RankingEvaluator {
  private final List<Metric> metrics;

  public RankingEvaluator(List<Metric> metrics) {
    this.metrics = List.copyOf(metrics);
  }

  public static RankingEvaluator standard() {
    return new RankingEvaluator(MetricSuite.standard());
  }

  public Evaluation evaluate(
      Qrels qrels, Map<String, List<ScoredDoc>> run, Collection<String> queryIds, RunOrder order) {
    Map<String, Map<String, Double>> perQuery = new LinkedHashMap<>();
    double[] sums = new double[metrics.size()];
    double[][] tieSums = new double[metrics.size()][4];
    for (String queryId : queryIds) {
      List<ScoredDoc> ranking = order.apply(run.getOrDefault(queryId, List.of()));
      JudgedQuery judged = new JudgedQuery(qrels.judgments(queryId).values());
      int[] grades = new int[ranking.size()];
      for (int i = 0; i < grades.length; i++) {
        grades[i] = qrels.grade(queryId, ranking.get(i).docId());
      }
      TieGroups groups = TieGroups.of(ranking);
      Map<String, Double> values = new LinkedHashMap<>();
      for (int m = 0; m < metrics.size(); m++) {
        Metric metric = metrics.get(m);
        TieAwareValue tie = TieAwareEvaluator.evaluate(metric, grades, groups, judged);
        double value = metric.compute(grades, judged);
        values.put(metric.name(), value);
        sums[m] += value;
        tieSums[m][0] += tie.expected();
        tieSums[m][1] += tie.min();
        tieSums[m][2] += tie.max();
      }
      perQuery.put(queryId, values);
    }
    int n = queryIds.size();
    Map<String, Double> means = new LinkedHashMap<>();
    Map<String, TieAwareValue> tieAware = new LinkedHashMap<>();
    for (int m = 0; m < metrics.size(); m++) {
      String name = metrics.get(m).name();
      double mean = n == 0 ? 0 : sums[m] / n;
      means.put(name, mean);
      if (n == 0) {
        tieAware.put(name, TieAwareValue.ZERO);
      } else {
        tieAware.put(
            name, TieAwareValue.of(tieSums[m][0] / n, tieSums[m][1] / n, tieSums[m][2] / n, mean));
      }
    }
    return new Evaluation(n, means, tieAware, perQuery);
  }
}
