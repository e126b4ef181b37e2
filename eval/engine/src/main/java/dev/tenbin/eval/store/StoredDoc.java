package dev.tenbin.eval.store;

/**
 * One retrieved document of a stored ranking.
 *
 * @param docId the document id
 * @param score the FP32 score as the service returned it (widened exactly to double)
 * @param rank 1-based rank in the stored order (score descending, doc id ascending on ties)
 */
public record StoredDoc(String docId, double score, int rank) {}
