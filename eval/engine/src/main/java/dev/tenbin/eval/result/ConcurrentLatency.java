package dev.tenbin.eval.result;

import java.util.List;
import java.util.Map;

/**
 * Query latency with several queries in flight, as a probe measured it: each query's whole path
 * (encode, then search) timed from its start to its answer while {@code inFlight} queries run
 * together.
 *
 * @param inFlight the queries in flight together (the stated concurrency, or fewer when there were
 *     fewer queries)
 * @param p50Us the median per-query latency in microseconds
 * @param p99Us the 99th percentile (linear interpolation between order statistics, R type 7)
 * @param queriesPerSecond queries answered over the wall time of the measurement
 */
public record ConcurrentLatency(int inFlight, double p50Us, double p99Us, double queriesPerSecond) {
  /** Diagnostics key of {@link #inFlight}. */
  public static final String IN_FLIGHT = "concurrent_latency_in_flight";

  /** Diagnostics key of {@link #p50Us}. */
  public static final String P50_US = "concurrent_latency_p50_us";

  /** Diagnostics key of {@link #p99Us}. */
  public static final String P99_US = "concurrent_latency_p99_us";

  /** Diagnostics key of {@link #queriesPerSecond}. */
  public static final String QUERIES_PER_SECOND = "concurrent_queries_per_second";

  /**
   * The figures a stored cell's diagnostics hold under the keys above, or null when it holds none
   * (a cell stored before they were measured) or only some.
   */
  public static ConcurrentLatency fromDiagnostics(Map<String, Object> diagnostics) {
    if (diagnostics == null
        || !(diagnostics.get(IN_FLIGHT) instanceof Number inFlight)
        || !(diagnostics.get(P50_US) instanceof Number p50)
        || !(diagnostics.get(P99_US) instanceof Number p99)
        || !(diagnostics.get(QUERIES_PER_SECOND) instanceof Number rate)) {
      return null;
    }
    return new ConcurrentLatency(
        inFlight.intValue(), p50.doubleValue(), p99.doubleValue(), rate.doubleValue());
  }

  /**
   * The figures of a query that runs through every one of {@code parts} in turn (a hybrid's
   * components): the latencies summed (the p99 bounds the tail of the whole query), the time each
   * part spends per query added ({@code 1 / Σ 1/q/s}). Null when a part was not measured, when the
   * parts ran with different queries in flight (not comparable), or when there are none.
   */
  public static ConcurrentLatency serial(List<ConcurrentLatency> parts) {
    if (parts.isEmpty() || parts.getFirst() == null) {
      return null;
    }
    int inFlight = parts.getFirst().inFlight();
    double p50 = 0;
    double p99 = 0;
    double secondsPerQuery = 0;
    for (ConcurrentLatency part : parts) {
      if (part == null || part.inFlight() != inFlight || !(part.queriesPerSecond() > 0)) {
        return null;
      }
      p50 += part.p50Us();
      p99 += part.p99Us();
      secondsPerQuery += 1 / part.queriesPerSecond();
    }
    return new ConcurrentLatency(inFlight, p50, p99, 1 / secondsPerQuery);
  }
}
