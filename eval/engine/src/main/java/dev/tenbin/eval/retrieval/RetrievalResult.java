package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.result.RunDiagnostics;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.util.List;
import java.util.Map;

/**
 * What one retrieval run produced: per query the ranking with FP32 scores (score descending, doc id
 * ascending), and how long each stage took.
 *
 * @param indexNanos documents encoded (if any) and indexed
 * @param searchNanos all queries searched
 * @param documentEncodeNanos documents encoded (0 for BM25)
 * @param queryEncodeNanos all queries encoded (0 for BM25)
 * @param diagnostics facts of the variant (bytes per vector, int8 query clip rate)
 * @param variantIndexNanos what the index built for this dense variant on top of the shared ingest
 *     ({@link dev.tenbin.eval.result.Timing#VARIANT_INDEX_MS}); negative when not measured (other
 *     families)
 */
public record RetrievalResult(
    Map<String, List<ScoredDoc>> rankings,
    long indexNanos,
    long searchNanos,
    int documents,
    long documentEncodeNanos,
    long queryEncodeNanos,
    RunDiagnostics diagnostics,
    long variantIndexNanos) {
  /** A result without a variant's own indexing time. */
  public RetrievalResult(
      Map<String, List<ScoredDoc>> rankings,
      long indexNanos,
      long searchNanos,
      int documents,
      long documentEncodeNanos,
      long queryEncodeNanos,
      RunDiagnostics diagnostics) {
    this(
        rankings,
        indexNanos,
        searchNanos,
        documents,
        documentEncodeNanos,
        queryEncodeNanos,
        diagnostics,
        -1);
  }

  public RetrievalResult(
      Map<String, List<ScoredDoc>> rankings, long indexNanos, long searchNanos, int documents) {
    this(rankings, indexNanos, searchNanos, documents, 0, 0, RunDiagnostics.NONE);
  }
}
