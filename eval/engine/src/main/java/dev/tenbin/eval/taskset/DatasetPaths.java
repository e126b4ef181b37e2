package dev.tenbin.eval.taskset;

import java.nio.file.Path;

/**
 * How the local paths of a task set become folders on this machine: expanded and resolved for a
 * local run ({@link #expanding}), confined to the data roots for the eval service (see {@code
 * JobAdmission}).
 */
public interface DatasetPaths {
  /**
   * The folder {@code raw} names.
   *
   * @param raw the path as written in the task set
   * @param base the task set file's folder
   * @param field the YAML path of the value ({@code tasks[2].source.path}), for the caller's
   *     records
   * @throws IllegalArgumentException when {@code raw} cannot be a path (the message says why)
   * @throws dev.tenbin.core.TenbinException when the path is refused
   */
  Path resolve(String raw, Path base, String field);

  /**
   * A folder found by listing a {@code tasks_from} folder; {@code field} is that entry's YAML path.
   */
  default Path found(Path folder, String field) {
    return folder;
  }

  /**
   * Expands {@code ~} to {@code home} and {@code ${NAME}} from {@code environment}, as {@code
   * tenbin run} does.
   */
  static DatasetPaths expanding(java.util.Map<String, String> environment, Path home) {
    return new PathTemplate(java.util.Map.copyOf(environment), home);
  }
}
