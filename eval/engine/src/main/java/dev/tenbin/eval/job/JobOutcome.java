package dev.tenbin.eval.job;

import java.util.List;

/**
 * How a job run ended.
 *
 * @param cellsTotal cells in the plan
 * @param cellsAlreadyStored cells found in the store when the run began (not recomputed)
 * @param cellsComputed cells computed and stored by this run
 * @param failures one line per failed work item
 * @param cancelled whether the run was cancelled before the end
 * @param elapsedMillis wall time of the run
 * @param millisByKind wall time spent in work items of each kind (bm25, dense, light, candidates,
 *     rerank, ...)
 * @param failureCode the gRPC status code name of the first failure ({@code INVALID_ARGUMENT},
 *     {@code UNAVAILABLE}, ...); "" when nothing failed
 */
public record JobOutcome(
    int cellsTotal,
    int cellsAlreadyStored,
    int cellsComputed,
    List<String> failures,
    boolean cancelled,
    long elapsedMillis,
    java.util.Map<String, Long> millisByKind,
    String failureCode) {
  public JobOutcome {
    failureCode = failureCode == null ? "" : failureCode;
  }

  /** An outcome whose failures have no code of their own (UNKNOWN when there are any). */
  public JobOutcome(
      int cellsTotal,
      int cellsAlreadyStored,
      int cellsComputed,
      List<String> failures,
      boolean cancelled,
      long elapsedMillis,
      java.util.Map<String, Long> millisByKind) {
    this(
        cellsTotal,
        cellsAlreadyStored,
        cellsComputed,
        failures,
        cancelled,
        elapsedMillis,
        millisByKind,
        failures.isEmpty() ? "" : "UNKNOWN");
  }

  public JobOutcome(
      int cellsTotal,
      int cellsAlreadyStored,
      int cellsComputed,
      List<String> failures,
      boolean cancelled,
      long elapsedMillis) {
    this(
        cellsTotal,
        cellsAlreadyStored,
        cellsComputed,
        failures,
        cancelled,
        elapsedMillis,
        java.util.Map.of());
  }

  /** A run cancelled before its plan was made: nothing planned, nothing computed. */
  public static JobOutcome cancelledBeforeStart() {
    return new JobOutcome(0, 0, 0, List.of(), true, 0);
  }

  public boolean succeeded() {
    return failures.isEmpty() && !cancelled && cellsAlreadyStored + cellsComputed == cellsTotal;
  }
}
