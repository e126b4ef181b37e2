package dev.tenbin.eval.job;

import dev.tenbin.eval.taskset.TaskSetSpec;
import java.nio.file.Path;
import java.util.List;

/**
 * A job the eval service accepted: its spec, its task sets (in the spec's order, every local path
 * inside the data roots) and its folder (inside the results root).
 */
public record AdmittedJob(JobSpec spec, List<TaskSetSpec> taskSets, Path directory) {
  public AdmittedJob {
    taskSets = List.copyOf(taskSets);
  }
}
