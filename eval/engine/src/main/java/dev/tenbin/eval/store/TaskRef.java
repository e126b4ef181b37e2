package dev.tenbin.eval.store;

import java.util.Comparator;

/**
 * One task of a benchmark, as cells are keyed by it and leaderboards group by it; identified by
 * benchmark and task name.
 *
 * @param benchmark the benchmark the task belongs to
 * @param dataset the dataset the task belongs to (several language tasks may share one); the unit
 *     of hierarchical macro averaging
 * @param task the task's name, unique within its benchmark
 * @param language ISO 639-1 code
 * @param domain domain category, "" when unknown
 */
public record TaskRef(
    String benchmark, String dataset, String task, String language, String domain) {
  /** Display order: benchmark, then task. */
  public static final Comparator<TaskRef> ORDER =
      Comparator.comparing(TaskRef::benchmark).thenComparing(TaskRef::task);

  /** A stable id, "benchmark/task". */
  public String id() {
    return benchmark + "/" + task;
  }
}
