package dev.tenbin.eval.job;

import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.store.CellRecord;

/**
 * What a running job reports: to progress bars on a terminal, or to the eval service's watchers.
 */
public interface JobListener {
  JobListener NONE = new JobListener() {};

  /** The plan is known: {@code stored} of {@code total} cells are already in the store. */
  default void planned(int total, int stored) {}

  /** A work item starts; it will store {@code missingCells} cells. */
  default void workStarted(Work work, int missingCells) {}

  /** Progress inside the running work item, e.g. documents encoded. */
  default void workProgress(Work work, long done, long total, String stage) {}

  /** A line worth keeping from the running work item, such as where its encode resumes. */
  default void workNote(Work work, String line) {}

  /**
   * The whole job's progress as an executor outside this process sees it (the shards of a
   * Kubernetes Job): cells stored so far, and what runs now (e.g. "shards: 1/4 done, 3 running").
   */
  default void progress(int cellsDone, String running) {}

  /** A cell's result has been stored. */
  default void cellStored(CellRecord record) {}

  /**
   * A cell's result has been stored; {@code run} is the evaluated run it was made from (rankings of
   * every query).
   */
  default void cellStored(CellRecord record, CellResult run) {}

  /**
   * A work item's attempt failed because a service it calls is unavailable; it runs again after a
   * pause (its stored cells are kept, only the missing ones are computed).
   */
  default void workRetrying(Work work, int attempt, String reason) {}

  /** A work item failed; the job goes on with the others. */
  default void workFailed(Work work, String message) {}

  /** A work item failed with {@code failure}; called after {@link #workFailed(Work, String)}. */
  default void workFailed(Work work, RuntimeException failure) {}

  default void finished(JobOutcome outcome) {}
}
