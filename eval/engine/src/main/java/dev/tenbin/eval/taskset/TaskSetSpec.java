package dev.tenbin.eval.taskset;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A benchmark declared in a task-set YAML file: named tasks, each a retrieval collection with its
 * language and domain. Read one with {@link TaskSetParser#parse(Path)}.
 *
 * @param name the benchmark's name, e.g. {@code NanoBEIR-en}
 * @param description free text; empty when absent
 * @param citation how to cite the benchmark; empty when absent
 * @param tasks the tasks in file order, names unique
 * @param baseDirectory the spec file's folder, against which relative paths were resolved
 */
public record TaskSetSpec(
    String name, String description, String citation, List<TaskSpec> tasks, Path baseDirectory) {

  public TaskSetSpec {
    tasks = List.copyOf(tasks);
  }

  /** The task called {@code taskName}, if the set has one. */
  public Optional<TaskSpec> task(String taskName) {
    return tasks.stream().filter(task -> task.name().equals(taskName)).findFirst();
  }
}
