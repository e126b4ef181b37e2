package dev.tenbin.scoring;

/**
 * The revision of Tenbin's ranking and metric code, part of every cell fingerprint ({@link
 * CellFingerprint}). Bump {@link #CURRENT} with any change that can change a stored result for the
 * same inputs: a metric's formula, the tie-aware expectation, the tie policy or run order, BM25,
 * dense, sparse or MaxSim scoring, quantization and rescoring, fusion, candidate sets, the TREC run
 * writer. A bumped revision gives every cell a new fingerprint, so a job folder computed before the
 * fix has its cells recomputed, not reused (the old files stay; reports count the newest cell of a
 * row and task).
 *
 * <p>{@code ScoringRevisionTest} holds a golden digest of the rankings and metrics that the current
 * code gives on fixed inputs, and fails, asking for a bump, when they change without one.
 *
 * <p>History: 1 — first revision (run files carry tie-broken scores; cells fingerprinted before had
 * no revision and are recomputed).
 */
public final class ScoringRevision {
  /** The revision of the ranking and metric code in this build. */
  public static final int CURRENT = 1;

  private ScoringRevision() {}
}
