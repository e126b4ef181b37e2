package dev.tenbin.eval.job;

import java.util.List;

/**
 * A job as a client submits it to the eval service: the spec text, the task sets it names (read by
 * the client and sent inline, never read from the service's disk) and the output folder, relative
 * to the service's results root. Nothing in it is trusted; {@link JobAdmission} checks it all.
 *
 * @param specYaml the job spec, YAML text
 * @param taskSets the task sets the spec names
 * @param outputDirectory the job's folder as the client wrote it
 */
public record JobRequest(String specYaml, List<TaskSetDocument> taskSets, String outputDirectory) {
  public JobRequest {
    specYaml = specYaml == null ? "" : specYaml;
    taskSets = List.copyOf(taskSets);
    outputDirectory = outputDirectory == null ? "" : outputDirectory;
  }

  /**
   * Whether {@code other} is the same job: the same spec and task sets (its folder may be spelt
   * differently). Sent again to the folder of an ended run of it, such a job resumes that run.
   */
  public boolean sameJob(JobRequest other) {
    return specYaml.equals(other.specYaml) && taskSets.equals(other.taskSets);
  }

  /**
   * A task set sent with a job.
   *
   * @param name the name as written in the spec's {@code task_sets}
   * @param yaml the task set, YAML text
   * @param baseDirectory the absolute folder relative dataset paths resolve against (the folder the
   *     client read it from), or empty for the service's first data root
   */
  public record TaskSetDocument(String name, String yaml, String baseDirectory) {
    public TaskSetDocument {
      name = name == null ? "" : name;
      yaml = yaml == null ? "" : yaml;
      baseDirectory = baseDirectory == null ? "" : baseDirectory;
    }
  }
}
