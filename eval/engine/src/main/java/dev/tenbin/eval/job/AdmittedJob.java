package dev.tenbin.eval.job;

import dev.tenbin.eval.taskset.TaskSetSpec;
import java.nio.file.Path;
import java.util.List;

/**
 * A job the eval service accepted: its spec, its task sets (in the spec's order, every local path
 * inside the data roots) and its folder (inside the results root).
 *
 * @param id the job's id on the service
 * @param spec the parsed spec
 * @param taskSets the parsed task sets, in the spec's order
 * @param directory the job's folder
 * @param request what the client sent (the spec and task set texts, for an executor that hands them
 *     to other processes)
 */
public record AdmittedJob(
    String id, JobSpec spec, List<TaskSetSpec> taskSets, Path directory, JobRequest request) {
  public AdmittedJob {
    taskSets = List.copyOf(taskSets);
  }
}
