package dev.tenbin.eval.aggregate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.export.MtebExport;
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
 * BAAI__bge-small-en-v1.5} becomes {@code bge-small-en-v1.5}, as Tenbin names models). An
 * experiment of a model, mteb 2.x's {@code <model>/<revision>/experiments/<experiment>/}, is a
 * model of its own named as mteb's {@code model_name_with_experiment} names it: {@code
 * bge-small-en-v1.5 (variant=int8)}, from the {@code experiment_kwargs} of the {@code
 * model_meta.json} beside its files, else from the folder's name ({@code variant_int8}); {@code
 * export mteb} writes a variant and a reranking mode so. Its score is the mean, over the tasks
 * every model of the folder has, of the task's {@code main_score} on the {@code test} split (the
 * mean over its subsets), so models are compared on the same tasks; other files ({@code
 * model_meta.json}) are ignored. Several revisions of a model (or of one experiment): the first in
 * name order whose folder has the tasks.
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
      String model = modelName(modelFolder.getFileName().toString());
      if (!tasks.isEmpty()) {
        models.put(model, tasks);
      }
      for (Path revision : revisions) {
        Path experiments = revision.resolve(MtebExport.EXPERIMENTS_FOLDER);
        if (!Files.isDirectory(experiments)) {
          continue;
        }
        for (Path experiment : list(experiments, field)) {
          if (!Files.isDirectory(experiment)) {
            continue;
          }
          Map<String, Double> experimentTasks = new TreeMap<>();
          for (Path file : list(experiment, field)) {
            readTask(file, field)
                .ifPresent(score -> experimentTasks.put(score.task(), score.value()));
          }
          if (!experimentTasks.isEmpty()) {
            models.putIfAbsent(
                model + " (" + experimentLabel(experiment, field) + ")", experimentTasks);
          }
        }
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

  /**
   * An experiment's keywords as {@code key=value, ...}: the {@code experiment_kwargs} of its {@code
   * model_meta.json}, else its folder's name read back ({@code mode_rerank__variant_int8}: keys and
   * values split at the first '_'; a hashed {@code exp_...} name stays as it is).
   */
  static String experimentLabel(Path experiment, String field) {
    Path meta = experiment.resolve(MtebExport.MODEL_META_FILE);
    if (Files.isRegularFile(meta)) {
      JsonNode kwargs;
      try {
        kwargs = JSON.readTree(meta.toFile()).path("experiment_kwargs");
      } catch (IOException e) {
        throw new InvalidInputException(
            field, field + ": " + meta + " is not valid JSON: " + e.getMessage());
      }
      if (kwargs.isObject() && !kwargs.isEmpty()) {
        Map<String, String> values = new TreeMap<>();
        kwargs.fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
        return MtebExport.experimentLabel(values);
      }
    }
    String name = experiment.getFileName().toString();
    Map<String, String> values = new TreeMap<>();
    for (String part : name.split("__")) {
      int cut = part.indexOf('_');
      if (cut <= 0 || name.startsWith("exp_")) {
        return name;
      }
      values.put(part.substring(0, cut), part.substring(cut + 1));
    }
    return MtebExport.experimentLabel(values);
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
