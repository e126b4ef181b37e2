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
 */
public record RetrievalResult(
    Map<String, List<ScoredDoc>> rankings,
    long indexNanos,
    long searchNanos,
    int documents,
    long documentEncodeNanos,
    long queryEncodeNanos,
    RunDiagnostics diagnostics) {
  public RetrievalResult(
      Map<String, List<ScoredDoc>> rankings, long indexNanos, long searchNanos, int documents) {
    this(rankings, indexNanos, searchNanos, documents, 0, 0, RunDiagnostics.NONE);
  }
}
