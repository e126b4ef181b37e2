package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.metrics.ScoredDoc;
import java.util.List;
import java.util.Map;

/**
 * What one retrieval run produced: per query the ranking with FP32 scores (score descending, doc id
 * ascending), and how long indexing and searching took.
 */
public record RetrievalResult(
    Map<String, List<ScoredDoc>> rankings, long indexNanos, long searchNanos, int documents) {}
