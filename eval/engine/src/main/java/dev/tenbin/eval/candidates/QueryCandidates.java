package dev.tenbin.eval.candidates;

import java.util.List;

/**
 * The candidates of one query: the fused top-100, and the safeguard positive appended at rank 101
 * only when the top-100 holds no positive (null otherwise).
 */
public record QueryCandidates(String queryId, List<Candidate> top, Candidate safeguard) {}
