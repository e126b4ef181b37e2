package dev.tenbin.eval.metrics;

/**
 * A ranked document and its score. Scores from Tenbin's services are FP32 and widen exactly to
 * double; scores read from run files keep the precision {@code trec_eval} reads them with.
 */
public record ScoredDoc(String docId, double score) {}
