package dev.tenbin.eval.aggregate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A published ranking read from a folder of MTEB result files, as the {@code
 * embeddings-benchmark/results} repository lays them out: {@code <model>/<revision>/<Task>.json}
 * (or {@code <model>/<Task>.json}), each {@code {"task_name", "scores": {"test": [{"main_score",
 * "hf_subset", ...}]}}}. A model is named by its folder with the organisation cut off ({@code
 * BAAI__bge-small-en-v1.5} becomes {@code bge-small-en-v1.5}, as Tenbin names models). Its score is
 * the mean, over the tasks every model of the folder has, of the task's {@code main_score} on the
 * {@code test} split (the mean over its subsets), so models are compared on the same tasks; other
 * files ({@code model_meta.json}) are ignored. Several revisions of a model: the first in name
 * order whose folder has the tasks.
 */
public final class MtebResults {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SPLIT = "test";

  private MtebResults() {}

  /** Reads the folder; a folder without results is an {@link InvalidInputException} on field. */
  public static OfficialRanking read(Path folder, String field) {
    Map<String, Map<String, Double>> models = new TreeMap<>();
    List<Path> modelFolders = list(folder, field).stream().filter(Files::isDirectory).toList();
    for (Path modelFolder : modelFolders) {
      Map<String, Double> tasks = new TreeMap<>();
      List<Path> revisions =
          Stream.concat(
                  Stream.of(modelFolder),
                  list(modelFolder, field).stream().filter(Files::isDirectory))
              .toList();
      for (Path revision : revisions) {
        if (tasks.isEmpty()) {
          for (Path file : list(revision, field)) {
            readTask(file, field).ifPresent(score -> tasks.put(score.task(), score.value()));
          }
        }
      }
      if (!tasks.isEmpty()) {
        models.put(modelName(modelFolder.getFileName().toString()), tasks);
      }
    }
    if (models.isEmpty()) {
      throw new InvalidInputException(
          field,
          field
              + " "
              + folder
              + " holds no MTEB result files (<model>/<revision>/<Task>.json with scores.test)");
    }
    Set<String> common = null;
    for (Map<String, Double> tasks : models.values()) {
      if (common == null) {
        common = new TreeSet<>(tasks.keySet());
      } else {
        common.retainAll(tasks.keySet());
      }
    }
    if (common.isEmpty()) {
      throw new InvalidInputException(
          field, field + " " + folder + ": the models share no task, so no score compares them");
    }
    Map<String, Double> values = new LinkedHashMap<>();
    for (var model : models.entrySet()) {
      double sum = 0;
      for (String task : common) {
        sum += model.getValue().get(task);
      }
      values.put(model.getKey(), sum / common.size());
    }
    return new OfficialRanking(
        folder + " (MTEB main_score, mean of " + common.size() + " tasks)", "score", values);
  }

  /** "BAAI__bge-small-en-v1.5" to "bge-small-en-v1.5". */
  static String modelName(String folder) {
    int cut = folder.lastIndexOf("__");
    return cut < 0 ? folder : folder.substring(cut + 2);
  }

  private record TaskScore(String task, double value) {}

  private static java.util.Optional<TaskScore> readTask(Path file, String field) {
    String name = file.getFileName().toString();
    if (!Files.isRegularFile(file) || !name.endsWith(".json") || name.equals("model_meta.json")) {
      return java.util.Optional.empty();
    }
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new InvalidInputException(
          field, field + ": " + file + " is not valid JSON: " + e.getMessage());
    }
    JsonNode subsets = root.path("scores").path(SPLIT);
    if (!subsets.isArray() || subsets.isEmpty()) {
      return java.util.Optional.empty();
    }
    double sum = 0;
    for (JsonNode subset : subsets) {
      JsonNode main = subset.path("main_score");
      if (!main.isNumber() || !Double.isFinite(main.asDouble())) {
        throw new InvalidInputException(
            field, field + ": " + file + ": a scores.test entry has no numeric main_score");
      }
      sum += main.asDouble();
    }
    String task =
        root.path("task_name").asText(name.substring(0, name.length() - ".json".length()));
    return java.util.Optional.of(new TaskScore(task, sum / subsets.size()));
  }

  private static List<Path> list(Path folder, String field) {
    try (Stream<Path> entries = Files.list(folder)) {
      return new ArrayList<>(entries.sorted().toList());
    } catch (IOException e) {
      throw new InvalidInputException(
          field, field + " " + folder + " cannot be listed: " + e.getMessage());
    }
  }
}
