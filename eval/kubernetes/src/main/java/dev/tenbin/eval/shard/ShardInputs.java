package dev.tenbin.eval.shard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenbin.eval.job.AdmittedJob;
import dev.tenbin.eval.job.JobRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The files a shard's process of an eval-service job reads: the service got the spec and task sets
 * inline, a pod runs {@code tenbin run SPEC}, so they are written into the job folder (on the
 * shared results volume) under {@code .tenbin/shards/}: {@code spec.yaml} naming {@code
 * task-set-I.yaml}, one per task set in the spec's order. Relative local dataset paths of a task
 * set are written out absolute against the folder the client resolved them in (the admission
 * already confined them to the data roots, which the pods mount at the same paths).
 */
public final class ShardInputs {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private ShardInputs() {}

  /** The folder of the inputs in the job folder {@code directory}. */
  public static Path folder(Path directory) {
    return directory.resolve(".tenbin").resolve("shards");
  }

  /**
   * Writes the inputs of {@code job} (replacing earlier ones) and returns the spec's path.
   *
   * @param firstDataRoot where task sets sent without a base folder resolve relative paths (the
   *     service's first data root), or null
   */
  public static Path write(AdmittedJob job, Path firstDataRoot) {
    Path folder = folder(job.directory());
    try {
      Files.createDirectories(folder);
      ObjectNode spec = (ObjectNode) YAML.readTree(job.request().specYaml());
      // Named as the service named it (a spec without a name takes the job's id), and the length
      // tokenizer as the admission resolved it.
      spec.put("name", job.spec().name());
      if (spec.get("positions") instanceof ObjectNode positions && positions.has("tokenizer")) {
        positions.put("tokenizer", job.spec().positions().tokenizer());
      }
      // The shards and replicas the admission chose (the spec's own, or the service's default).
      if (job.spec().shards() > 1 || spec.has("shards")) {
        spec.put("shards", job.spec().shards());
      }
      if (job.spec().replicas() > 1 || spec.has("replicas")) {
        spec.put("replicas", job.spec().replicas());
      }
      ArrayNode files = spec.putArray("task_sets");
      List<String> names = job.spec().taskSetNames();
      for (int i = 0; i < names.size(); i++) {
        JobRequest.TaskSetDocument document = document(job.request(), names.get(i));
        Path base =
            document.baseDirectory().isEmpty()
                ? (firstDataRoot == null ? Path.of("/") : firstDataRoot)
                : Path.of(document.baseDirectory());
        String file = "task-set-" + i + ".yaml";
        write(folder.resolve(file), YAML.writeValueAsString(absolute(document.yaml(), base)));
        files.add(file);
      }
      Path specFile = folder.resolve("spec.yaml");
      write(specFile, YAML.writeValueAsString(spec));
      return specFile;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the shards' inputs into " + folder, e);
    }
  }

  private static JobRequest.TaskSetDocument document(JobRequest request, String name) {
    return request.taskSets().stream()
        .filter(d -> d.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("task set " + name + " was not sent"));
  }

  /** The task set {@code yaml} with its relative local paths made absolute against {@code base}. */
  static JsonNode absolute(String yaml, Path base) throws IOException {
    JsonNode root = YAML.readTree(yaml);
    if (root instanceof ObjectNode set) {
      for (JsonNode task : set.path("tasks")) {
        if (task instanceof ObjectNode t) {
          resolve(t, "queries", base);
          if (t.get("source") instanceof ObjectNode source) {
            resolve(source, "path", base);
          }
        }
      }
      if (set.get("tasks_from") instanceof ObjectNode from) {
        resolve(from, "path", base);
      } else {
        resolve(set, "tasks_from", base);
      }
    }
    return root;
  }

  private static void resolve(ObjectNode node, String key, Path base) {
    JsonNode value = node.get(key);
    if (value != null && value.isTextual() && !Path.of(value.asText()).isAbsolute()) {
      node.put(key, base.resolve(value.asText()).normalize().toString());
    }
  }

  private static void write(Path file, String text) throws IOException {
    Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
    Files.writeString(temporary, text, StandardCharsets.UTF_8);
    Files.move(
        temporary,
        file,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
