package dev.tenbin.eval.candidates;

/**
 * One document of a candidate set.
 *
 * @param docId the document
 * @param rank 1-based rank in the fused list (101 for the safeguard positive)
 * @param bm25Rank rank in the BM25 top-500, 0 when absent
 * @param denseRank rank in the dense top-500, 0 when absent
 */
public record Candidate(String docId, int rank, int bm25Rank, int denseRank) {}
