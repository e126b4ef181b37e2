package dev.tenbin.eval.nano;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * How well a task's Nano-set ranks systems as its full collection does, as a job keeps it for its
 * leaderboards: {@code JOB/nano-fidelity/BENCHMARK_TASK.json}, a copy of the {@code fidelity.json}
 * that {@code tenbin nano fidelity --record} wrote into the Nano-set's folder, with the job's task
 * added. The job copies it only while the folder still holds the collection it was measured on (the
 * record's {@code nano_dataset_sha} equals the task's dataset fingerprint).
 *
 * @param task the job's task on the Nano-set ({@code benchmark/task})
 * @param fullTask the full collection's task it was compared with
 * @param metric the metric compared
 * @param kendallTau Kendall τ-b between the two rankings of systems; null when undefined
 * @param pairsAgreeing pairs of systems ordered the same on both
 * @param pairs pairs of systems
 * @param topK the k of the top-k agreement
 * @param topKShared systems in both top-k
 * @param systems systems compared
 * @param systemsDiffering systems whose paired 95% interval of Δ (Nano − full) excludes 0
 * @param largestDelta the largest |Δ| (× 100) of a system
 */
public record NanoFidelityRecord(
    String task,
    String fullTask,
    String metric,
    Double kendallTau,
    int pairsAgreeing,
    int pairs,
    int topK,
    int topKShared,
    int systems,
    int systemsDiffering,
    double largestDelta) {
  public static final String FOLDER = "nano-fidelity";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The records kept in {@code jobDir/nano-fidelity/}, by file name; none when absent. */
  public static List<NanoFidelityRecord> readAll(Path jobDir) {
    Path folder = jobDir.resolve(FOLDER);
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    List<NanoFidelityRecord> records = new ArrayList<>();
    try (Stream<Path> files = Files.list(folder)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList()) {
        NanoFidelityRecord record = read(JSON.readTree(file.toFile()));
        if (record != null) {
          records.add(record);
        }
      }
    } catch (IOException e) {
      // A record that cannot be read is left out: it adds to a leaderboard, never decides it.
      return List.copyOf(records);
    }
    return List.copyOf(records);
  }

  /** A record from its JSON; null when it lacks the job's task or the comparison. */
  static NanoFidelityRecord read(JsonNode root) {
    if (!root.path("job_task").isTextual() || !root.path("systems").isArray()) {
      return null;
    }
    int differing = 0;
    double largest = 0;
    for (JsonNode system : root.path("systems")) {
      JsonNode interval = system.path("delta_interval");
      if (interval.isArray()
          && interval.size() == 2
          && (interval.get(0).asDouble() > 0 || interval.get(1).asDouble() < 0)) {
        differing++;
      }
      if (system.path("delta").isNumber()) {
        largest = Math.max(largest, Math.abs(system.path("delta").asDouble()));
      }
    }
    return new NanoFidelityRecord(
        root.path("job_task").asText(),
        root.path("full_task").asText(""),
        root.path("metric").asText("ndcg@10"),
        root.path("kendall_tau_b").isNumber() ? root.path("kendall_tau_b").asDouble() : null,
        root.path("pairs_ordered_the_same").asInt(),
        root.path("pairs").asInt(),
        root.path("top_k").asInt(),
        root.path("top_k_shared").asInt(),
        root.path("systems").size(),
        differing,
        largest);
  }

  /** One line: "ndcg@10 ranks 3 systems as b/full does: Kendall τ-b 0.333 (2 of 3 pairs ...)". */
  public String summary() {
    return String.format(
        java.util.Locale.ROOT,
        "%s ranks %d systems as %s does: Kendall τ-b %s, %d of %d pairs ordered the same, %d of"
            + " the top %d shared; %d system%s differ%s from the full collection beyond its 95%%"
            + " interval (largest |Δ| %.2f)",
        metric,
        systems,
        fullTask,
        kendallTau == null ? "n/a" : String.format(java.util.Locale.ROOT, "%.3f", kendallTau),
        pairsAgreeing,
        pairs,
        topKShared,
        topK,
        systemsDiffering,
        systemsDiffering == 1 ? "" : "s",
        systemsDiffering == 1 ? "s" : "",
        largestDelta);
  }
}
