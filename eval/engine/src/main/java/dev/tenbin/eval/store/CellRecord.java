package dev.tenbin.eval.store;

import dev.tenbin.scoring.metrics.TieAwareValue;
import java.util.List;
import java.util.Map;

/**
 * The stored result of one finished cell: one schema for every family and mode. Written once, as
 * {@code cells/<fingerprint>.json.gz} of a job's output folder, and never rewritten.
 *
 * @param formatVersion {@link #FORMAT_VERSION}
 * @param fingerprint SHA-256 (hex) over everything that determines the cell's result; see the job
 *     runner
 * @param key what was evaluated
 * @param versions resolved versions: "dataset_sha", "model_revision", "tenbin_version",
 *     "onnxruntime_provider", "model_dtype", "lucene_version", ...
 * @param facts facts for filtering and plotting: "num_queries", "num_documents",
 *     "avg_query_tokens", "avg_document_tokens" (whitespace words), "dimension", "parameters",
 *     "bytes_per_vector" (scanned bytes, as "scanned_bytes_per_vector"), "stored_bytes_per_vector"
 *     (numbers; absent when unknown; cells from before stored bytes have "bytes_per_vector" only,
 *     read as scanned bytes, see {@code RowFacts})
 * @param metrics mean metric values over the evaluated queries ("ndcg@10", "ndcg@100", "recall@10",
 *     "recall@100", "precision@10", "accuracy@1", "accuracy@10", "accuracy@100", "mrr@10",
 *     "map@100"; cells stored before precision@10 was added lack it)
 * @param tieAware per metric: expected, min, max, range and bias over the orders of tied scores
 * @param timings milliseconds and microseconds, named with their unit: "encode_ms", "index_ms",
 *     "search_ms", "rerank_ms", "per_query_encode_us", "per_query_search_us", "cell_ms"
 * @param diagnostics "query_coverage", "relevant_coverage", "candidate_origin",
 *     "int8_query_clip_rate", "int8_calibration", "bytes_per_vector", ... (JSON values)
 * @param queries per evaluated query: its metrics and stored top-100
 * @param finishedAt ISO-8601 UTC instant the cell finished
 */
public record CellRecord(
    int formatVersion,
    String fingerprint,
    CellKey key,
    Map<String, String> versions,
    Map<String, Double> facts,
    Map<String, Double> metrics,
    Map<String, TieAwareValue> tieAware,
    Map<String, Double> timings,
    Map<String, Object> diagnostics,
    List<StoredQuery> queries,
    String finishedAt) {
  public static final int FORMAT_VERSION = 1;
}
