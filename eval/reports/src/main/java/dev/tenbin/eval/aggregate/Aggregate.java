package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.TaskRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * How per-task scores become one number per row.
 *
 * <ul>
 *   <li>{@link #MICRO}: every task weighs the same — the mean over all tasks.
 *   <li>{@link #MACRO}: every benchmark weighs the same — the mean of the benchmark scores, where a
 *       benchmark's score is hierarchical: tasks sharing a dataset (one per language, say) are
 *       averaged first, then the datasets. For a monolingual benchmark (dataset = task) that is the
 *       plain mean over its tasks.
 * </ul>
 *
 * <p>The task lists may repeat a task (a bootstrap draw): each occurrence counts once.
 */
public enum Aggregate {
  MICRO,
  MACRO;

  /** The aggregate of {@code score} over {@code tasks}; NaN when there are none. */
  public double of(List<TaskRef> tasks, ToDoubleFunction<TaskRef> score) {
    if (tasks.isEmpty()) {
      return Double.NaN;
    }
    return switch (this) {
      case MICRO -> tasks.stream().mapToDouble(score).average().orElseThrow();
      case MACRO -> mean(benchmarkScores(tasks, score).values());
    };
  }

  /** The lower-case name used by the CLI and the reports: "micro" or "macro". */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Parses "micro" or "macro" (any case). */
  public static Aggregate parse(String text) {
    return valueOf(text.trim().toUpperCase(java.util.Locale.ROOT));
  }

  /**
   * The hierarchical score of each benchmark present in {@code tasks} (mean over datasets of the
   * mean over each dataset's tasks), in benchmark name order.
   */
  public static Map<String, Double> benchmarkScores(
      List<TaskRef> tasks, ToDoubleFunction<TaskRef> score) {
    Map<String, Map<String, List<Double>>> grouped = new TreeMap<>();
    for (TaskRef task : tasks) {
      grouped
          .computeIfAbsent(task.benchmark(), b -> new LinkedHashMap<>())
          .computeIfAbsent(task.dataset(), d -> new ArrayList<>())
          .add(score.applyAsDouble(task));
    }
    Map<String, Double> scores = new LinkedHashMap<>();
    grouped.forEach(
        (benchmark, datasets) ->
            scores.put(benchmark, mean(datasets.values().stream().map(Aggregate::mean).toList())));
    return scores;
  }

  private static double mean(java.util.Collection<Double> values) {
    double sum = 0;
    for (double value : values) {
      sum += value;
    }
    return sum / values.size();
  }
}
