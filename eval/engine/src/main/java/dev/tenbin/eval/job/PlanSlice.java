package dev.tenbin.eval.job;

import dev.tenbin.eval.plan.Work;
import java.util.List;

/**
 * Which part of a job's plan one run computes: the whole plan, or one shard of it ({@code tenbin
 * run --shard I/K}). A slice only chooses work items; every run of a job stores the same
 * content-addressed cells into the same folder, so the slices of one job add up to the whole.
 */
public interface PlanSlice {
  /** The whole plan, run by one process (the lock, events and plan files of before). */
  PlanSlice WHOLE =
      new PlanSlice() {
        @Override
        public String name() {
          return "";
        }

        @Override
        public List<Work> select(List<Work> plan) {
          return plan;
        }
      };

  /**
   * The slice's name in file names beside the cells ({@code .lock-NAME}, {@code
   * shards/NAME.events.jsonl}); "" for the whole plan.
   */
  String name();

  /** Which of the {@link #count} parts of the job this is, from 0 (the whole plan: 0). */
  default int index() {
    return 0;
  }

  /** How many parts the job runs as (the whole plan: 1). */
  default int count() {
    return 1;
  }

  /** The work items of {@code plan} this slice runs, in plan order. */
  List<Work> select(List<Work> plan);
}
