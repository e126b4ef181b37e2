package dev.tenbin.eval.taskset;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.taskset.DatasetSource.HubDataset;
import dev.tenbin.eval.taskset.DatasetSource.LocalBeir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads a task-set YAML file into a {@link TaskSetSpec}. The format:
 *
 * <pre>{@code
 * name: NanoBEIR-en                  # required
 * description: ...                   # optional
 * citation: ...                      # optional
 * tasks:
 *   - name: NanoSciFact              # required, unique; letters, digits, '.', '_', '-'
 *     dataset: NanoSciFact           # optional, defaults to name
 *     language: en                   # required: ISO 639-1, or auto (detect from the corpus)
 *     domain: science                # optional free text
 *     citation: ...                  # optional
 *     source:                        # required: a hub dataset ...
 *       hub: zeta-alpha-ai/NanoSciFact
 *       revision: 309f1d1ae3ae2e092444a8a0c25bed59b82318bc   # required: branch, tag or SHA
 *       split: train                 # optional, default train
 *       configs: {corpus: corpus, queries: queries, qrels: qrels}   # optional
 *       format: parquet              # optional: parquet or jsonl; detected when absent
 *   - name: msmarco-5k
 *     language: en
 *     source: {path: ../data/msmarco-5k}   # ... or a local BEIR folder
 *                                    # (its split: the qrels/<split>.tsv to read, default test)
 *     queries: ../data/other-language  # optional: another folder's queries (cross-lingual)
 *     length_reference: xquad-en     # optional: the task (same set) whose document lengths
 *                                    # bucket this one's position analysis (same document ids)
 * tasks_from:                        # optional: every BEIR folder directly under path is a task
 *   path: ../data                    # (or just tasks_from: ../data)
 *   language: auto                   # optional default for the folders, default auto
 *   domain: ...                      # optional default for the folders
 *   folders:                         # optional, per folder: dataset, language, domain, citation
 *     xquad-de: {dataset: xquad, language: de}
 * }</pre>
 *
 * <p>For a local run, paths may start with {@code ~} and hold {@code ${ENV}} variables; relative
 * ones are resolved against the spec file's folder. How paths are resolved is a {@link
 * DatasetPaths}: the eval service expands nothing and refuses paths outside its data roots. YAML
 * syntax errors give a line and column, never the source text. Unknown keys, duplicate keys and
 * duplicate task names are errors. Every error is an {@link InvalidInputException} whose field is
 * the YAML path of the offending value (e.g. {@code tasks[3].source.revision}) and whose message
 * starts with the spec file.
 */
public final class TaskSetParser {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final Pattern LANGUAGE = Pattern.compile("[a-z]{2}|" + TaskSpec.AUTO_LANGUAGE);
  private static final Pattern REPOSITORY =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final Pattern REVISION = Pattern.compile("[A-Za-z0-9._/-]+");
  private static final Pattern FORMAT = Pattern.compile("parquet|jsonl");

  private static final Set<String> SPEC_KEYS =
      ordered("name", "description", "citation", "tasks", "tasks_from");
  private static final Set<String> TASK_KEYS =
      ordered(
          "name",
          "dataset",
          "language",
          "domain",
          "citation",
          "source",
          "queries",
          "length_reference");
  private static final Set<String> SOURCE_KEYS =
      ordered("path", "hub", "revision", "split", "configs", "format");
  private static final Set<String> TASKS_FROM_KEYS =
      ordered("path", "language", "domain", "folders");
  private static final Set<String> FOLDER_KEYS =
      ordered("dataset", "language", "domain", "citation");

  private static final YAMLMapper YAML = yamlMapper();

  private final DatasetPaths paths;

  /** A parser that expands {@code ~} and {@code ${ENV}} from this process's environment. */
  public TaskSetParser() {
    this(System.getenv(), Path.of(System.getProperty("user.home")));
  }

  /**
   * A parser that expands {@code ${ENV}} from {@code environment} and {@code ~} to {@code home}.
   */
  public TaskSetParser(Map<String, String> environment, Path home) {
    this(DatasetPaths.expanding(environment, home));
  }

  /** A parser whose local paths are resolved (and possibly refused) by {@code paths}. */
  public TaskSetParser(DatasetPaths paths) {
    this.paths = paths;
  }

  /** Reads and validates the spec in {@code file}. */
  public TaskSetSpec parse(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new InvalidInputException("spec", "task-set spec not found: " + file);
    }
    String yaml;
    try {
      yaml = Files.readString(file);
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new InvalidInputException("spec", "task-set spec " + file + " is not UTF-8 text");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return parse(yaml, file.toString(), file.toAbsolutePath().normalize().getParent());
  }

  /**
   * Validates task-set YAML text.
   *
   * @param yaml the task set
   * @param source how messages name it (its file, or where a client sent it from)
   * @param base the folder relative paths resolve against (absolute)
   */
  public TaskSetSpec parse(String yaml, String source, Path base) {
    JsonNode tree;
    try {
      tree = YamlErrors.readTree(YAML, yaml);
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(
          "spec", source + ": not valid YAML (" + YamlErrors.describe(e) + ")");
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw new InvalidInputException("spec", source + ": empty task-set spec");
    }
    SpecNode root = new SpecNode(tree, "", source).mapping(SPEC_KEYS);
    String name = root.required("name").text();
    List<TaskSpec> tasks = new ArrayList<>();
    if (root.has("tasks")) {
      for (SpecNode task : root.child("tasks").elements()) {
        tasks.add(task(task, base));
      }
    }
    int declared = tasks.size();
    if (root.has("tasks_from")) {
      tasks.addAll(tasksFrom(root.child("tasks_from"), base));
    }
    if (tasks.isEmpty()) {
      throw root.error("tasks", "the spec declares no task (give tasks or tasks_from)");
    }
    checkUniqueNames(tasks, declared, root);
    checkLengthReferences(tasks, root);
    return new TaskSetSpec(
        name, root.optionalText("description", ""), root.optionalText("citation", ""), tasks, base);
  }

  private TaskSpec task(SpecNode node, Path base) {
    node.mapping(TASK_KEYS);
    String name =
        node.required("name").text(NAME, "a task name (letters, digits, '.', '_' or '-')");
    return new TaskSpec(
        name,
        node.has("dataset")
            ? node.child("dataset").text(NAME, "a dataset name (letters, digits, '.', '_' or '-')")
            : name,
        language(node.required("language")),
        node.optionalText("domain", ""),
        node.optionalText("citation", ""),
        source(node.required("source"), base),
        node.has("queries") ? path(node.child("queries"), base) : null,
        node.has("length_reference")
            ? node.child("length_reference").text(NAME, "the name of another task of this set")
            : null);
  }

  private static String language(SpecNode node) {
    return node.text(
        LANGUAGE, "an ISO 639-1 language code such as en, or auto (detect from the corpus)");
  }

  private DatasetSource source(SpecNode node, Path base) {
    node.mapping(SOURCE_KEYS);
    if (node.has("path") == node.has("hub")) {
      throw node.error(
          "give exactly one of path (a local BEIR folder) or hub (a Hugging Face dataset)");
    }
    if (node.has("path")) {
      for (String hubOnly : List.of("revision", "configs", "format")) {
        if (node.has(hubOnly)) {
          throw node.error(node.child(hubOnly).path(), hubOnly + " only applies to hub sources");
        }
      }
      return new LocalBeir(
          path(node.child("path"), base),
          node.has("split")
              ? node.child("split").text(NAME, "a split name (qrels/<split>.tsv)")
              : dev.tenbin.scoring.beir.BeirDatasetReader.DEFAULT_SPLIT);
    }
    String repository = node.child("hub").text(REPOSITORY, "a hub repository name owner/name");
    if (!node.has("revision")) {
      throw node.error(
          node.child("revision").path(),
          "missing (required): pin a branch, tag or, for reproducible runs, a commit SHA");
    }
    String revision = node.child("revision").text(REVISION, "a branch, tag or commit SHA");
    if (revision.contains("..")) {
      throw node.child("revision")
          .error(SafeText.quote(revision) + " is not a branch, tag or commit SHA");
    }
    String split = node.has("split") ? node.child("split").text(NAME, "a split name") : "train";
    Map<String, String> configs = new LinkedHashMap<>();
    if (node.has("configs")) {
      for (var entry :
          node.child("configs").mapping(new LinkedHashSet<>(HubDataset.allRoles())).entries()) {
        configs.put(entry.getKey(), entry.getValue().text(NAME, "a config name"));
      }
    }
    String format = node.has("format") ? node.child("format").text(FORMAT, "parquet or jsonl") : "";
    return new HubDataset(repository, revision, split, configs, format);
  }

  private Path path(SpecNode node, Path base) {
    String raw = node.text();
    try {
      return paths.resolve(raw, base, node.path());
    } catch (IllegalArgumentException e) {
      throw node.error(e.getMessage());
    } catch (TenbinException e) {
      throw node.refused(e);
    }
  }

  private List<TaskSpec> tasksFrom(SpecNode node, Path base) {
    SpecNode pathNode = node;
    String language = TaskSpec.AUTO_LANGUAGE;
    String domain = "";
    Map<String, SpecNode> folders = new LinkedHashMap<>();
    if (!node.isText()) {
      node.mapping(TASKS_FROM_KEYS);
      pathNode = node.required("path");
      language = node.has("language") ? language(node.child("language")) : language;
      domain = node.optionalText("domain", domain);
      if (node.has("folders")) {
        for (var entry : node.child("folders").entries()) {
          folders.put(entry.getKey(), entry.getValue().mapping(FOLDER_KEYS));
        }
      }
    }
    Path directory = path(pathNode, base);
    if (!Files.isDirectory(directory)) {
      throw pathNode.error("folder not found: " + directory);
    }
    List<TaskSpec> tasks = new ArrayList<>();
    Set<String> found = new LinkedHashSet<>();
    for (Path listed : beirFolders(directory)) {
      String name = listed.getFileName().toString();
      Path folder;
      try {
        folder = paths.found(listed, pathNode.path());
      } catch (TenbinException e) {
        throw pathNode.refused(e);
      }
      if (!NAME.matcher(name).matches()) {
        throw pathNode.error(
            "folder name "
                + SafeText.quote(name)
                + " cannot be a task name (letters, digits, '.', '_' or '-')");
      }
      found.add(name);
      SpecNode overrides = folders.get(name);
      tasks.add(
          overrides == null
              ? new TaskSpec(name, name, language, domain, "", new LocalBeir(folder))
              : new TaskSpec(
                  name,
                  overrides.has("dataset")
                      ? overrides.child("dataset").text(NAME, "a dataset name")
                      : name,
                  overrides.has("language") ? language(overrides.child("language")) : language,
                  overrides.optionalText("domain", domain),
                  overrides.optionalText("citation", ""),
                  new LocalBeir(folder)));
    }
    for (var entry : folders.entrySet()) {
      if (!found.contains(entry.getKey())) {
        throw entry
            .getValue()
            .error(
                "no BEIR folder "
                    + SafeText.quote(entry.getKey())
                    + " (with corpus.jsonl) under "
                    + directory);
      }
    }
    if (tasks.isEmpty()) {
      throw pathNode.error("no BEIR folder (with corpus.jsonl) directly under " + directory);
    }
    return tasks;
  }

  private static List<Path> beirFolders(Path directory) {
    try (Stream<Path> children = Files.list(directory)) {
      return children
          .filter(child -> Files.isRegularFile(child.resolve("corpus.jsonl")))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + directory, e);
    }
  }

  /**
   * Task names are unique; {@code declared} tasks come from {@code tasks}, the rest from {@code
   * tasks_from}.
   */
  private static void checkUniqueNames(List<TaskSpec> tasks, int declared, SpecNode root) {
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < tasks.size(); i++) {
      if (!names.add(tasks.get(i).name())) {
        throw root.error(
            i < declared ? "tasks[" + i + "].name" : "tasks_from",
            "duplicate task name " + SafeText.quote(tasks.get(i).name()));
      }
    }
  }

  /** A {@code length_reference} names another task of the set, itself without one. */
  private static void checkLengthReferences(List<TaskSpec> tasks, SpecNode root) {
    Map<String, TaskSpec> byName = new java.util.HashMap<>();
    tasks.forEach(task -> byName.put(task.name(), task));
    for (int i = 0; i < tasks.size(); i++) {
      String reference = tasks.get(i).lengthReference();
      if (reference == null) {
        continue;
      }
      String field = "tasks[" + i + "].length_reference";
      TaskSpec target = byName.get(reference);
      if (target == null) {
        throw root.error(field, "no task named " + SafeText.quote(reference) + " in this task set");
      }
      if (target.name().equals(tasks.get(i).name())) {
        throw root.error(field, "a task cannot be its own length reference; leave it out");
      }
      if (target.lengthReference() != null) {
        throw root.error(
            field,
            SafeText.quote(reference)
                + " borrows its lengths from "
                + SafeText.quote(target.lengthReference())
                + "; name that task instead");
      }
    }
  }

  private static Set<String> ordered(String... keys) {
    return new LinkedHashSet<>(List.of(keys));
  }

  private static YAMLMapper yamlMapper() {
    YAMLMapper mapper = new YAMLMapper();
    mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    return mapper;
  }
}
