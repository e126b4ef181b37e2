package dev.tenbin.eval.result;

/** A named duration of a run; the unit is in the name (milliseconds or microseconds). */
public enum Timing {
  INDEX_MS("index_ms"),
  SEARCH_MS("search_ms"),
  DOCUMENT_ENCODE_MS("document_encode_ms"),
  QUERY_ENCODE_MS("query_encode_ms"),
  PER_QUERY_ENCODE_US("per_query_encode_us"),
  PER_QUERY_SEARCH_US("per_query_search_us"),
  /** One query at a time, after the batch run warmed up (the latency probe). */
  QUERY_ENCODE_LATENCY_US("query_encode_latency_us"),
  SEARCH_LATENCY_US("search_latency_us"),
  QUERY_ENCODE_LATENCY_P99_US("query_encode_latency_p99_us"),
  SEARCH_LATENCY_P99_US("search_latency_p99_us"),
  /**
   * A query's whole path (encode, then search) with several in flight (the concurrent probe; how
   * many, and the queries per second, are in the diagnostics: {@link ConcurrentLatency}).
   */
  CONCURRENT_LATENCY_P50_US(ConcurrentLatency.P50_US),
  CONCURRENT_LATENCY_P99_US(ConcurrentLatency.P99_US),
  RERANK_MS("rerank_ms"),
  PER_QUERY_RERANK_US("per_query_rerank_us");

  private final String key;

  Timing(String key) {
    this.key = key;
  }

  /** The key in results ({@code timings_ms} of {@code tenbin eval --json}, stored cells). */
  public String key() {
    return key;
  }
}
