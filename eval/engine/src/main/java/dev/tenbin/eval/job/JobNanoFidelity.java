package dev.tenbin.eval.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.nano.NanoFidelityRecord;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.Work;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Keeps the Nano-set fidelity of a job's tasks with the job ({@link NanoFidelityRecord}): for each
 * local task whose folder holds a {@code fidelity.json} measured on that very collection, a copy
 * under {@code JOB/nano-fidelity/BENCHMARK_TASK.json} naming the job's task, which its leaderboards
 * show beside the task. A record measured on another version of the folder (its {@code
 * nano_dataset_sha} differs from the task's dataset fingerprint) is left behind, and the job's
 * earlier copy for that task is removed.
 */
public final class JobNanoFidelity {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JobNanoFidelity() {}

  /** Copies the fidelity records of {@code plan}'s tasks into {@code jobDirectory}. */
  public static void keep(Path jobDirectory, List<Work> plan) {
    Set<String> seen = new HashSet<>();
    for (Work work : plan) {
      JobTask task = work.task();
      if (seen.add(task.benchmark() + "/" + task.task() + "@" + task.datasetSha())) {
        keep(jobDirectory, task);
      }
    }
  }

  private static void keep(Path jobDirectory, JobTask task) {
    String id = task.benchmark() + "/" + task.task();
    Path file =
        jobDirectory
            .resolve(NanoFidelityRecord.FOLDER)
            .resolve(id.replaceAll("[^A-Za-z0-9._-]", "_") + ".json");
    ObjectNode copy = current(task);
    try {
      if (copy == null) {
        // None, or one measured on another version of the folder: the task's copy goes too.
        Files.deleteIfExists(file);
        return;
      }
      copy.put("job_task", id);
      JobFiles.replace(file, copy.toPrettyString() + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The task folder's record when it was measured on the task's collection as it is; else null. */
  private static ObjectNode current(JobTask task) {
    String folder = task.provenance() == null ? null : task.provenance().get("path");
    if (folder == null) {
      return null;
    }
    Path source = Path.of(folder).resolve("fidelity.json");
    if (!Files.isRegularFile(source)) {
      return null;
    }
    JsonNode root;
    try {
      root = JSON.readTree(source.toFile());
    } catch (IOException e) {
      return null; // not a record: nothing to show
    }
    if (!root.isObject() || !task.datasetSha().equals(root.path("nano_dataset_sha").asText())) {
      return null;
    }
    ObjectNode copy = ((ObjectNode) root).deepCopy();
    copy.put("source", source.toString());
    return copy;
  }
}
