package dev.tenbin.eval.result;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Facts about one run besides its metrics and timings; each is null when the run's family does not
 * report it. Written out ({@code tenbin eval --json}, results.json, stored cells) by {@link
 * #asMap()} under the snake_case names below, in this order, absent ones left out. The Java types
 * (int, long, double) are kept as measured, so numbers are written as before.
 *
 * @param candidateSet "candidate_set": the kind of candidate set a reranker read ("hybrid", ...)
 * @param candidateOrigin "candidate_origin": the dense model of the candidate set, or "bm25"
 * @param queryCoverage "query_coverage": share of evaluated queries with candidates
 * @param relevantDocumentCoverage "relevant_document_coverage": share of relevant documents among
 *     the candidates
 * @param safeguardPositives "safeguard_positives": safeguard positives added to candidate sets
 * @param fusion "fusion": how a hybrid fused its sides
 * @param maxQueryDims "max_query_dims": a sparse variant's query pruning
 * @param maxDocumentDims "max_document_dims": a sparse variant's document pruning
 * @param bytesPerVector "bytes_per_vector": a dense variant's scanned bytes per document (kept
 *     under this name from before stored and scanned bytes were told apart; the same value as
 *     "scanned_bytes_per_vector")
 * @param scannedBytesPerVector "scanned_bytes_per_vector": what a dense variant's first stage reads
 *     per document vector (d·4 float, d int8, ceil(d/8) binary; the float vectors a rescore reads
 *     for its shortlist are not counted)
 * @param storedBytesPerVector "stored_bytes_per_vector": what a dense variant keeps per document
 *     vector: the scanned bytes plus, for a rescored quantization, the float vectors (4·d)
 * @param bytesPerToken "bytes_per_token": a multi-vector model's stored bytes per token
 * @param queryEncodeLatencyUs "query_encode_latency_us": median one-query encode latency
 * @param searchLatencyUs "search_latency_us": median one-query search latency
 * @param queryEncodeLatencyP99Us "query_encode_latency_p99_us": 99th percentile of the one-query
 *     encode latency
 * @param searchLatencyP99Us "search_latency_p99_us": 99th percentile of the one-query search
 *     latency
 * @param concurrentLatencyInFlight "concurrent_latency_in_flight": the queries in flight together
 *     when the concurrent latency was measured ({@link ConcurrentLatency})
 * @param concurrentLatencyP50Us "concurrent_latency_p50_us": median latency of a query's whole path
 *     (encode, then search) with that many in flight
 * @param concurrentLatencyP99Us "concurrent_latency_p99_us": its 99th percentile
 * @param concurrentQueriesPerSecond "concurrent_queries_per_second": the queries answered per
 *     second of that measurement
 * @param similarity "similarity": "dot" or "cosine", the dense similarity used
 * @param hnswRecallVsExact "hnsw_recall_vs_exact": an approximate variant's recall against exact
 *     search
 * @param int8QueryClipRate "int8_query_clip_rate": share of int8 query values clipped
 * @param int8Calibration "int8_calibration": an int8 variant's calibration and clip and saturation
 *     rates ({@link Int8CalibrationFacts})
 * @param vectorsPerDocument "vectors_per_document": a chunked variant's windows per source document
 *     (the mean over the corpus): the vectors it keeps and scans for each document
 * @param shardStatisticsMs "shard_statistics_ms": a search of a sharded collection, the part of
 *     {@code search_ms} spent asking the shards for collection-wide statistics before searching
 *     (BM25 document frequencies and lengths, int8 ranges)
 * @param shardMergeMs "shard_merge_ms": a search of a sharded collection, the part of {@code
 *     search_ms} spent merging the shards' top lists into the collection's
 */
public record RunDiagnostics(
    String candidateSet,
    String candidateOrigin,
    Double queryCoverage,
    Double relevantDocumentCoverage,
    Long safeguardPositives,
    String fusion,
    Integer maxQueryDims,
    Integer maxDocumentDims,
    Long bytesPerVector,
    Long scannedBytesPerVector,
    Long storedBytesPerVector,
    Long bytesPerToken,
    Double queryEncodeLatencyUs,
    Double searchLatencyUs,
    Double queryEncodeLatencyP99Us,
    Double searchLatencyP99Us,
    Integer concurrentLatencyInFlight,
    Double concurrentLatencyP50Us,
    Double concurrentLatencyP99Us,
    Double concurrentQueriesPerSecond,
    String similarity,
    Double hnswRecallVsExact,
    Double int8QueryClipRate,
    Int8CalibrationFacts int8Calibration,
    Double vectorsPerDocument,
    Double shardStatisticsMs,
    Double shardMergeMs) {

  /** A run without diagnostics. */
  public static final RunDiagnostics NONE = builder().build();

  public static Builder builder() {
    return new Builder();
  }

  /** Whether no diagnostic is present. */
  public boolean isEmpty() {
    return asMap().isEmpty();
  }

  /** Name to value of the present diagnostics, in the order of the components. */
  public Map<String, Object> asMap() {
    Map<String, Object> map = new LinkedHashMap<>();
    put(map, "candidate_set", candidateSet);
    put(map, "candidate_origin", candidateOrigin);
    put(map, "query_coverage", queryCoverage);
    put(map, "relevant_document_coverage", relevantDocumentCoverage);
    put(map, "safeguard_positives", safeguardPositives);
    put(map, "fusion", fusion);
    put(map, "max_query_dims", maxQueryDims);
    put(map, "max_document_dims", maxDocumentDims);
    put(map, "bytes_per_vector", bytesPerVector);
    put(map, "scanned_bytes_per_vector", scannedBytesPerVector);
    put(map, "stored_bytes_per_vector", storedBytesPerVector);
    put(map, "bytes_per_token", bytesPerToken);
    put(map, "query_encode_latency_us", queryEncodeLatencyUs);
    put(map, "search_latency_us", searchLatencyUs);
    put(map, "query_encode_latency_p99_us", queryEncodeLatencyP99Us);
    put(map, "search_latency_p99_us", searchLatencyP99Us);
    put(map, ConcurrentLatency.IN_FLIGHT, concurrentLatencyInFlight);
    put(map, ConcurrentLatency.P50_US, concurrentLatencyP50Us);
    put(map, ConcurrentLatency.P99_US, concurrentLatencyP99Us);
    put(map, ConcurrentLatency.QUERIES_PER_SECOND, concurrentQueriesPerSecond);
    put(map, "similarity", similarity);
    put(map, "hnsw_recall_vs_exact", hnswRecallVsExact);
    put(map, "int8_query_clip_rate", int8QueryClipRate);
    put(map, "int8_calibration", int8Calibration == null ? null : int8Calibration.asMap());
    put(map, "vectors_per_document", vectorsPerDocument);
    put(map, "shard_statistics_ms", shardStatisticsMs);
    put(map, "shard_merge_ms", shardMergeMs);
    return Collections.unmodifiableMap(map);
  }

  /** The latency measured with several queries in flight, or null when it was not measured. */
  public ConcurrentLatency concurrentLatency() {
    return concurrentLatencyInFlight == null
            || concurrentLatencyP50Us == null
            || concurrentLatencyP99Us == null
            || concurrentQueriesPerSecond == null
        ? null
        : new ConcurrentLatency(
            concurrentLatencyInFlight,
            concurrentLatencyP50Us,
            concurrentLatencyP99Us,
            concurrentQueriesPerSecond);
  }

  /** These diagnostics with {@code value} vectors per source document (a chunked variant). */
  public RunDiagnostics withVectorsPerDocument(double value) {
    return new RunDiagnostics(
        candidateSet,
        candidateOrigin,
        queryCoverage,
        relevantDocumentCoverage,
        safeguardPositives,
        fusion,
        maxQueryDims,
        maxDocumentDims,
        bytesPerVector,
        scannedBytesPerVector,
        storedBytesPerVector,
        bytesPerToken,
        queryEncodeLatencyUs,
        searchLatencyUs,
        queryEncodeLatencyP99Us,
        searchLatencyP99Us,
        concurrentLatencyInFlight,
        concurrentLatencyP50Us,
        concurrentLatencyP99Us,
        concurrentQueriesPerSecond,
        similarity,
        hnswRecallVsExact,
        int8QueryClipRate,
        int8Calibration,
        value,
        shardStatisticsMs,
        shardMergeMs);
  }

  private static void put(Map<String, Object> map, String name, Object value) {
    if (value != null) {
      map.put(name, value);
    }
  }

  /** Builds diagnostics one fact at a time; unset facts stay absent. */
  public static final class Builder {
    private String candidateSet;
    private String candidateOrigin;
    private Double queryCoverage;
    private Double relevantDocumentCoverage;
    private Long safeguardPositives;
    private String fusion;
    private Integer maxQueryDims;
    private Integer maxDocumentDims;
    private Long bytesPerVector;
    private Long scannedBytesPerVector;
    private Long storedBytesPerVector;
    private Long bytesPerToken;
    private Double queryEncodeLatencyUs;
    private Double searchLatencyUs;
    private Double queryEncodeLatencyP99Us;
    private Double searchLatencyP99Us;
    private Integer concurrentLatencyInFlight;
    private Double concurrentLatencyP50Us;
    private Double concurrentLatencyP99Us;
    private Double concurrentQueriesPerSecond;
    private String similarity;
    private Double hnswRecallVsExact;
    private Double int8QueryClipRate;
    private Int8CalibrationFacts int8Calibration;
    private Double shardStatisticsMs;
    private Double shardMergeMs;

    private Builder() {}

    /** The kind and origin of the candidate set a reranker read. */
    public Builder candidateSet(String kind, String origin) {
      candidateSet = kind;
      candidateOrigin = origin;
      return this;
    }

    /** The coverage of a candidate set: of queries, of relevant documents, safeguards added. */
    public Builder coverage(double queries, double relevantDocuments, long safeguards) {
      queryCoverage = queries;
      relevantDocumentCoverage = relevantDocuments;
      safeguardPositives = safeguards;
      return this;
    }

    public Builder fusion(String value) {
      fusion = value;
      return this;
    }

    /** A sparse variant's pruning. */
    public Builder sparseDims(int maxQuery, int maxDocument) {
      maxQueryDims = maxQuery;
      maxDocumentDims = maxDocument;
      return this;
    }

    public Builder bytesPerVector(long value) {
      bytesPerVector = value;
      return this;
    }

    /**
     * A dense variant's scanned and stored bytes per vector ("bytes_per_vector" is the scanned
     * figure).
     */
    public Builder vectorBytes(long scanned, long stored) {
      bytesPerVector = scanned;
      scannedBytesPerVector = scanned;
      storedBytesPerVector = stored;
      return this;
    }

    public Builder int8Calibration(Int8CalibrationFacts value) {
      int8Calibration = value;
      return this;
    }

    public Builder bytesPerToken(long value) {
      bytesPerToken = value;
      return this;
    }

    /** Median one-query latencies in microseconds; a null value stays absent. */
    public Builder latencies(Double queryEncodeUs, Double searchUs) {
      queryEncodeLatencyUs = queryEncodeUs;
      searchLatencyUs = searchUs;
      return this;
    }

    /** The 99th percentiles of the one-query latencies in microseconds; null stays absent. */
    public Builder latencyTails(Double queryEncodeP99Us, Double searchP99Us) {
      queryEncodeLatencyP99Us = queryEncodeP99Us;
      searchLatencyP99Us = searchP99Us;
      return this;
    }

    /** Probed one-query latencies: medians and 99th percentiles (null: not probed). */
    public Builder latencies(Latency queryEncode, Latency search) {
      latencies(
          queryEncode == null ? null : queryEncode.p50Us(), search == null ? null : search.p50Us());
      return latencyTails(
          queryEncode == null ? null : queryEncode.p99Us(), search == null ? null : search.p99Us());
    }

    /** Latency with several queries in flight (null: not measured, left absent). */
    public Builder concurrentLatency(ConcurrentLatency value) {
      concurrentLatencyInFlight = value == null ? null : value.inFlight();
      concurrentLatencyP50Us = value == null ? null : value.p50Us();
      concurrentLatencyP99Us = value == null ? null : value.p99Us();
      concurrentQueriesPerSecond = value == null ? null : value.queriesPerSecond();
      return this;
    }

    public Builder similarity(String value) {
      similarity = value;
      return this;
    }

    public Builder hnswRecallVsExact(double value) {
      hnswRecallVsExact = value;
      return this;
    }

    public Builder int8QueryClipRate(double value) {
      int8QueryClipRate = value;
      return this;
    }

    /** A sharded search's statistics phase and merge, in nanoseconds (stored as milliseconds). */
    public Builder scatterCost(long statisticsNanos, long mergeNanos) {
      shardStatisticsMs = statisticsNanos / 1e6;
      shardMergeMs = mergeNanos / 1e6;
      return this;
    }

    public RunDiagnostics build() {
      return new RunDiagnostics(
          candidateSet,
          candidateOrigin,
          queryCoverage,
          relevantDocumentCoverage,
          safeguardPositives,
          fusion,
          maxQueryDims,
          maxDocumentDims,
          bytesPerVector,
          scannedBytesPerVector,
          storedBytesPerVector,
          bytesPerToken,
          queryEncodeLatencyUs,
          searchLatencyUs,
          queryEncodeLatencyP99Us,
          searchLatencyP99Us,
          concurrentLatencyInFlight,
          concurrentLatencyP50Us,
          concurrentLatencyP99Us,
          concurrentQueriesPerSecond,
          similarity,
          hnswRecallVsExact,
          int8QueryClipRate,
          int8Calibration,
          null,
          shardStatisticsMs,
          shardMergeMs);
    }
  }
}
