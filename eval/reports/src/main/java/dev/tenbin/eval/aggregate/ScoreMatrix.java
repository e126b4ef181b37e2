package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The cells of a scope arranged as rows × tasks, with each cell's score: the chosen metric × 100.
 *
 * <p>The tasks are those of every cell in scope, in {@link TaskRef#ORDER}; the rows those of every
 * cell in scope, in {@link RowKey#ORDER}. When several cells share a row and a task (the same cell
 * in two job folders), the most recently finished one counts. A cell without the metric counts as
 * absent.
 */
public final class ScoreMatrix {
  private final String metric;
  private final List<TaskRef> tasks;
  private final List<RowKey> rows;
  private final Map<RowKey, Map<TaskRef, CellRecord>> cells;

  private ScoreMatrix(
      String metric,
      List<TaskRef> tasks,
      List<RowKey> rows,
      Map<RowKey, Map<TaskRef, CellRecord>> cells) {
    this.metric = metric;
    this.tasks = tasks;
    this.rows = rows;
    this.cells = cells;
  }

  /** Arranges the cells of {@code scope} that report {@code metric}. */
  public static ScoreMatrix of(List<CellRecord> all, String metric, Scope scope) {
    Map<String, TaskRef> tasksById = new TreeMap<>();
    Map<RowKey, Map<TaskRef, CellRecord>> cells = new HashMap<>();
    Comparator<CellRecord> newest =
        Comparator.comparing((CellRecord c) -> c.finishedAt() == null ? "" : c.finishedAt())
            .thenComparing(CellRecord::fingerprint);
    for (CellRecord cell : all) {
      if (!scope.includes(cell.key())
          || cell.metrics() == null
          || cell.metrics().get(metric) == null) {
        continue;
      }
      TaskRef task = tasksById.computeIfAbsent(cell.key().task().id(), id -> cell.key().task());
      cells
          .computeIfAbsent(RowKey.of(cell.key()), r -> new HashMap<>())
          .merge(task, cell, (old, fresh) -> newest.compare(fresh, old) > 0 ? fresh : old);
    }
    List<TaskRef> tasks = tasksById.values().stream().sorted(TaskRef.ORDER).toList();
    List<RowKey> rows = cells.keySet().stream().sorted(RowKey.ORDER).toList();
    return new ScoreMatrix(metric, tasks, rows, cells);
  }

  public String metric() {
    return metric;
  }

  /** Every task of the scope, in display order. */
  public List<TaskRef> tasks() {
    return tasks;
  }

  /** Every row with at least one cell in scope, in display order. */
  public List<RowKey> rows() {
    return rows;
  }

  /** The benchmarks of the scope, in name order. */
  public List<String> benchmarks() {
    return tasks.stream().map(TaskRef::benchmark).distinct().sorted().toList();
  }

  public Optional<CellRecord> cell(RowKey row, TaskRef task) {
    return Optional.ofNullable(cells.getOrDefault(row, Map.of()).get(task));
  }

  public boolean has(RowKey row, TaskRef task) {
    return cell(row, task).isPresent();
  }

  /** The score (metric × 100) of a present cell. */
  public double score(RowKey row, TaskRef task) {
    return 100
        * cell(row, task)
            .orElseThrow(() -> new IllegalArgumentException(row.id() + " lacks " + task.id()))
            .metrics()
            .get(metric);
  }

  /** The tie range (tie-aware max − min of the metric, × 100) of a present cell; 0 when unknown. */
  public double tieRange(RowKey row, TaskRef task) {
    CellRecord cell = cell(row, task).orElseThrow();
    TieAwareValue tie = cell.tieAware() == null ? null : cell.tieAware().get(metric);
    return tie == null ? 0 : 100 * tie.range();
  }

  /**
   * A fact of a task ("avg_query_tokens", ...) from the first of its cells that knows it, or null.
   */
  public Double taskFact(TaskRef task, String name) {
    for (RowKey row : rows) {
      Double value =
          cell(row, task).map(c -> c.facts() == null ? null : c.facts().get(name)).orElse(null);
      if (value != null && Double.isFinite(value)) {
        return value;
      }
    }
    return null;
  }

  /** The row's scores on the tasks it has, in task order. */
  public Map<TaskRef, Double> scores(RowKey row) {
    Map<TaskRef, Double> scores = new LinkedHashMap<>();
    for (TaskRef task : tasks) {
      if (has(row, task)) {
        scores.put(task, score(row, task));
      }
    }
    return scores;
  }

  /** The tasks of the scope the row has a cell for, in task order. */
  public List<TaskRef> covered(RowKey row) {
    List<TaskRef> covered = new ArrayList<>();
    for (TaskRef task : tasks) {
      if (has(row, task)) {
        covered.add(task);
      }
    }
    return covered;
  }

  /** The row's cells in task order. */
  public List<CellRecord> cells(RowKey row) {
    return covered(row).stream().map(task -> cell(row, task).orElseThrow()).toList();
  }

  /** Whether the row has a cell for every task of the scope. */
  public boolean complete(RowKey row) {
    return covered(row).size() == tasks.size();
  }
}
