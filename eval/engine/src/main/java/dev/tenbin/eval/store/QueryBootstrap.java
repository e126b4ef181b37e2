package dev.tenbin.eval.store;

import dev.tenbin.scoring.stats.Interval;
import dev.tenbin.scoring.stats.QueryResampling;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A cell's query-bootstrap intervals, as it stores them: how much its mean depends on its choice of
 * queries ({@link QueryResampling#meanIntervals}: the central 95% of the means over resampled
 * queries), {@value #DRAWS} draws, seed {@value #SEED}, so the same per-query values always give
 * the same intervals.
 *
 * <p>New cells store their intervals as the diagnostic {@value #KEY}: {@code {"draws": 1000,
 * "seed": 15, "level": 0.95, "intervals": {"ndcg@10": [low, high], ...}}} on the metric's own scale
 * (0..1). Cells stored before it have none and get theirs computed on read from their stored
 * per-query values ({@link #of(CellRecord)}): the same function of the same values, so the same
 * intervals. The diagnostic is a result, not an input: it is no part of the cell's fingerprint.
 */
public final class QueryBootstrap {
  /** The diagnostic a cell stores its intervals under. */
  public static final String KEY = "query_bootstrap";

  public static final int DRAWS = 1_000;
  public static final long SEED = 15;
  public static final double LEVEL = 0.95;

  private QueryBootstrap() {}

  /**
   * The interval of each metric's mean over the queries.
   *
   * @param perQuery per query: metric name to value; a metric missing from any query gets no
   *     interval
   * @param draws resamples (0: no intervals)
   * @param seed the random seed
   * @return metric name to its interval, in the first query's metric order; empty without queries
   */
  public static Map<String, Interval> intervals(
      List<Map<String, Double>> perQuery, int draws, long seed) {
    return QueryResampling.meanIntervals(perQuery, draws, seed, LEVEL);
  }

  /** The intervals of {@link #DRAWS} draws with seed {@link #SEED}, as a cell stores them. */
  public static Map<String, Interval> intervals(List<Map<String, Double>> perQuery) {
    return intervals(perQuery, DRAWS, SEED);
  }

  /** The stored form ({@value #KEY}) of intervals computed with the defaults. */
  public static Map<String, Object> toDiagnostic(Map<String, Interval> intervals) {
    Map<String, Object> stored = new LinkedHashMap<>();
    stored.put("draws", DRAWS);
    stored.put("seed", SEED);
    stored.put("level", LEVEL);
    Map<String, List<Double>> bounds = new LinkedHashMap<>();
    intervals.forEach(
        (metric, interval) -> bounds.put(metric, List.of(interval.low(), interval.high())));
    stored.put("intervals", bounds);
    return stored;
  }

  /**
   * A cell's query-bootstrap intervals (metric scale, 0..1): those it stored, or for a cell stored
   * before they were, computed now from its stored per-query values. Empty when the cell has no
   * stored queries.
   */
  public static Map<String, Interval> of(CellRecord cell) {
    Object stored = cell.diagnostics() == null ? null : cell.diagnostics().get(KEY);
    if (stored instanceof Map<?, ?> diagnostic
        && diagnostic.get("intervals") instanceof Map<?, ?> bounds) {
      Map<String, Interval> intervals = new LinkedHashMap<>();
      bounds.forEach(
          (metric, pair) -> {
            if (pair instanceof List<?> list
                && list.size() == 2
                && list.get(0) instanceof Number low
                && list.get(1) instanceof Number high) {
              intervals.put(
                  String.valueOf(metric), new Interval(low.doubleValue(), high.doubleValue()));
            }
          });
      return Collections.unmodifiableMap(intervals);
    }
    if (cell.queries() == null) {
      return Map.of();
    }
    List<Map<String, Double>> perQuery = new ArrayList<>(cell.queries().size());
    for (StoredQuery query : cell.queries()) {
      perQuery.add(query.metrics() == null ? Map.of() : query.metrics());
    }
    return intervals(perQuery);
  }
}
