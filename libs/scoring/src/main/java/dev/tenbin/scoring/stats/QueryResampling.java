package dev.tenbin.scoring.stats;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * How much a system's mean metrics depend on its choice of queries (the query bootstrap): each draw
 * resamples the evaluated queries with replacement (as many as there are, {@link
 * Resampling#indices}) and recomputes every metric's mean over the sample; a metric's interval is
 * the central {@code level} of those means ({@link Interval#percentile}). All metrics of a draw
 * share its sample, and the same values, draws and seed always give the same intervals.
 */
public final class QueryResampling {
  private QueryResampling() {}

  /**
   * The interval of each metric's mean over the queries.
   *
   * @param perQuery per query: metric name to value; a metric missing from any query gets no
   *     interval
   * @param draws resamples (0: no intervals)
   * @param seed the random seed
   * @param level the central share of the means the interval holds, e.g. 0.95
   * @return metric name to its interval, in the first query's metric order; empty without queries
   */
  public static Map<String, Interval> meanIntervals(
      List<Map<String, Double>> perQuery, int draws, long seed, double level) {
    if (perQuery.isEmpty() || draws <= 0) {
      return Map.of();
    }
    List<String> metrics = new ArrayList<>(new LinkedHashSet<>(perQuery.get(0).keySet()));
    metrics.removeIf(m -> perQuery.stream().anyMatch(q -> q.get(m) == null));
    int n = perQuery.size();
    double[][] values = new double[metrics.size()][n];
    for (int m = 0; m < metrics.size(); m++) {
      for (int q = 0; q < n; q++) {
        values[m][q] = perQuery.get(q).get(metrics.get(m));
      }
    }
    double[][] means = new double[metrics.size()][draws];
    SplittableRandom random = new SplittableRandom(seed);
    for (int draw = 0; draw < draws; draw++) {
      int[] sample = Resampling.indices(random, n, n);
      for (int m = 0; m < metrics.size(); m++) {
        double sum = 0;
        for (int q : sample) {
          sum += values[m][q];
        }
        means[m][draw] = sum / n;
      }
    }
    Map<String, Interval> intervals = new LinkedHashMap<>();
    for (int m = 0; m < metrics.size(); m++) {
      intervals.put(metrics.get(m), Interval.percentile(means[m], level));
    }
    return Collections.unmodifiableMap(intervals);
  }
}
