package dev.tenbin.eval.result;

/**
 * A named duration of a run; the unit is in the name (milliseconds or microseconds). The phases a
 * run spends its time in, each measured once ({@link PhaseTimings} adds them up): {@code index_ms}
 * (the documents' encode, {@code document_encode_ms}, included), {@code variant_index_ms}, {@code
 * query_encode_ms}, {@code search_ms} and {@code rerank_ms}.
 */
public enum Timing {
  /** Documents encoded (their {@link #DOCUMENT_ENCODE_MS}) and ingested: shared by the variants. */
  INDEX_MS("index_ms"),
  /**
   * What a dense variant's index builds for it on top of the shared ingest, before its first
   * search: the normalised or truncated vectors, the int8 calibration and codes, the sign bits, the
   * HNSW graph (a one-query search of the variant that builds them; not part of {@link
   * #SEARCH_MS}). A part shared with a variant searched before it in the same run (the normalised
   * vectors base built) counts with that variant. Absent for other families and in cells stored
   * before it was measured (their {@code search_ms} holds it).
   */
  VARIANT_INDEX_MS("variant_index_ms"),
  /** The evaluated queries searched, once the variant was built. */
  SEARCH_MS("search_ms"),
  /** The documents' encode: part of {@link #INDEX_MS}, not a phase of its own. */
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
