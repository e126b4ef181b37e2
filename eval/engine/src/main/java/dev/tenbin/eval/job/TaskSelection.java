package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.eval.taskset.TaskSetSpec;
import dev.tenbin.eval.taskset.TaskSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The tasks a job runs: every task of its task sets, or only those its {@code tasks:} names. One
 * home for the rule, used by {@code tenbin run} when it loads a job and by the eval service when it
 * checks one at submit time.
 */
public final class TaskSelection {
  /**
   * A selected task.
   *
   * @param taskSetIndex the index of its task set in the spec's {@code task_sets}
   */
  public record Selected(int taskSetIndex, TaskSetSpec taskSet, TaskSpec task) {}

  private TaskSelection() {}

  /**
   * The selected tasks, in task-set and file order.
   *
   * @throws InvalidInputException naming {@code tasks} when it names a task no task set has, or
   *     {@code task_sets} when nothing is selected
   */
  public static List<Selected> select(JobSpec spec, List<TaskSetSpec> taskSets) {
    Set<String> wanted = new LinkedHashSet<>(spec.taskFilter());
    Set<String> seen = new LinkedHashSet<>();
    List<Selected> selected = new ArrayList<>();
    for (int i = 0; i < taskSets.size(); i++) {
      for (TaskSpec task : taskSets.get(i).tasks()) {
        seen.add(task.name());
        if (wanted.isEmpty() || wanted.contains(task.name())) {
          selected.add(new Selected(i, taskSets.get(i), task));
        }
      }
    }
    wanted.removeAll(seen);
    if (!wanted.isEmpty()) {
      throw new InvalidInputException(
          "tasks",
          "job spec "
              + spec.file()
              + " names tasks its task sets lack: "
              + SafeText.escaped(wanted.toString(), 400));
    }
    if (selected.isEmpty()) {
      throw new InvalidInputException("task_sets", "job spec " + spec.file() + " selects no task");
    }
    return selected;
  }
}
