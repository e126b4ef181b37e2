package dev.tenbin.eval.shard;

import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.store.ResultStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The last step of a sharded job: checks that every cell of the whole plan is stored in the job
 * folder, computing nothing. The caller writes the leaderboards and the warehouse only when it is
 * complete (a shard never writes them: its cells are part of the job).
 */
public final class JobMerge {
  /**
   * What the merge found.
   *
   * @param cellsTotal cells of the whole plan
   * @param cellsStored those stored
   * @param missing labels of the cells not stored (with their work item), in plan order
   */
  public record Result(int cellsTotal, int cellsStored, List<String> missing) {
    public boolean complete() {
      return missing.isEmpty();
    }
  }

  private JobMerge() {}

  /** Checks the whole {@code plan} against the cells stored under {@code directory}. */
  public static Result check(Path directory, List<Work> plan) {
    ResultStore store = ResultStore.open(directory);
    int total = 0;
    int stored = 0;
    List<String> missing = new ArrayList<>();
    for (Work work : plan) {
      for (PlannedCell cell : work.cells()) {
        total++;
        if (store.contains(cell.fingerprint())) {
          stored++;
        } else {
          missing.add(cell.key().label() + " (" + work.label() + ")");
        }
      }
    }
    return new Result(total, stored, List.copyOf(missing));
  }
}
