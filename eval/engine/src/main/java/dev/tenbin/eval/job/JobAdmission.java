package dev.tenbin.eval.job;

import dev.tenbin.core.AlreadyExistsException;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.TenbinException;
import dev.tenbin.eval.confine.ConfinedRoots;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.taskset.DatasetPaths;
import dev.tenbin.eval.taskset.DatasetSource.LocalBeir;
import dev.tenbin.eval.taskset.TaskSetParser;
import dev.tenbin.eval.taskset.TaskSetSpec;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a job sent to the eval service before it is queued, so that a bad job fails its {@code
 * SubmitJob} call rather than later: the spec, the task sets sent with it, the local dataset
 * folders of the selected tasks and the output folder.
 *
 * <p>Nothing is read from the service's disk on the client's word except under the data roots: task
 * sets come inline; {@code ~} and {@code ${ENV}} are not expanded; local dataset paths (and the
 * three files of each selected BEIR folder) must resolve, symbolic links followed, inside a data
 * root; the output folder inside the results root and clear of the service's state folder (its job
 * table and lock; a results root inside the state folder, the default, is the one part of it jobs
 * use). A path outside is PERMISSION_DENIED naming the field ({@code output_dir}, {@code
 * task_sets[0].tasks[2].source.path}); anything else wrong is INVALID_ARGUMENT naming the field, as
 * is a control character in any of its strings ({@link RequestText}). Messages quote what the
 * client sent (cut, escaped), never file contents.
 */
public final class JobAdmission {
  /** Largest spec text accepted. */
  public static final int MAX_SPEC_CHARS = 1 << 20;

  /** Largest task set text accepted. */
  public static final int MAX_TASK_SET_CHARS = 8 << 20;

  /** Most task sets one job may carry. */
  public static final int MAX_TASK_SETS = 64;

  private static final List<String> BEIR_FILES = List.of("corpus.jsonl", "queries.jsonl");

  private final ConfinedRoots dataRoots;
  private final ConfinedRoots resultsRoot;
  private final Path stateDirectory;
  private final ModelCatalog models;
  private final int defaultShards;
  private final int defaultReplicas;

  /** An admission whose service keeps no state folder of its own among the results. */
  public JobAdmission(ConfinedRoots dataRoots, ConfinedRoots resultsRoot) {
    this(dataRoots, resultsRoot, null);
  }

  /**
   * @param stateDirectory the service's state folder (its job table and lock), which no job folder
   *     may overlap; null for none
   */
  public JobAdmission(ConfinedRoots dataRoots, ConfinedRoots resultsRoot, Path stateDirectory) {
    this(dataRoots, resultsRoot, stateDirectory, ModelCatalog.UNKNOWN, 1, 1);
  }

  private JobAdmission(
      ConfinedRoots dataRoots,
      ConfinedRoots resultsRoot,
      Path stateDirectory,
      ModelCatalog models,
      int defaultShards,
      int defaultReplicas) {
    if (resultsRoot.roots().size() != 1) {
      throw new IllegalArgumentException("exactly one results root");
    }
    this.dataRoots = dataRoots;
    this.resultsRoot = resultsRoot;
    this.stateDirectory =
        stateDirectory == null ? null : stateDirectory.toAbsolutePath().normalize();
    this.models = models;
    this.defaultShards = defaultShards;
    this.defaultReplicas = defaultReplicas;
  }

  /**
   * This admission, also checking that every model a spec names is one its services know ({@link
   * SpecModels}): a job naming an unknown model fails its submit, not its run.
   */
  public JobAdmission withModels(ModelCatalog catalog) {
    return new JobAdmission(
        dataRoots, resultsRoot, stateDirectory, catalog, defaultShards, defaultReplicas);
  }

  /**
   * This admission, splitting each collection of a job whose spec has no {@code shards:} into
   * {@code shards} shards (the service's {@code --default-shards}).
   */
  public JobAdmission withDefaultShards(int shards) {
    if (shards < 1 || shards > JobSpec.MAX_SHARDS) {
      throw new IllegalArgumentException(
          "--default-shards must be within 1.." + JobSpec.MAX_SHARDS + ", got " + shards);
    }
    return new JobAdmission(
        dataRoots, resultsRoot, stateDirectory, models, shards, defaultReplicas);
  }

  /**
   * This admission, keeping each shard of a job whose spec has no {@code replicas:} as {@code
   * replicas} copies (the service's {@code --default-replicas}).
   */
  public JobAdmission withDefaultReplicas(int replicas) {
    if (replicas < 1 || replicas > JobSpec.MAX_REPLICAS) {
      throw new IllegalArgumentException(
          "--default-replicas must be within 1.." + JobSpec.MAX_REPLICAS + ", got " + replicas);
    }
    return new JobAdmission(
        dataRoots, resultsRoot, stateDirectory, models, defaultShards, replicas);
  }

  /** The admission for {@code folders}; the results root is created when missing. */
  public static JobAdmission of(ServiceFolders folders) {
    try {
      Files.createDirectories(folders.resultsRoot());
    } catch (java.io.IOException e) {
      throw new InvalidInputException(
          "--results-root",
          "cannot create --results-root " + folders.resultsRoot() + ": " + e.getMessage());
    }
    return new JobAdmission(
        ConfinedRoots.of("--data-root", "data roots", folders.dataRoots()),
        ConfinedRoots.of("--results-root", "results root", List.of(folders.resultsRoot())),
        folders.stateDirectory());
  }

  /** The folder job folders are created under (a real path). */
  public Path resultsRoot() {
    return resultsRoot.roots().getFirst();
  }

  /** The data roots (real paths); empty when local datasets are refused. */
  public List<Path> dataRoots() {
    return dataRoots.roots();
  }

  /**
   * Checks {@code request} and returns the job it describes.
   *
   * @param jobId the id the job will have (names the spec in messages and is its default name)
   * @throws InvalidInputException or {@link PermissionDeniedException} naming the field
   */
  public AdmittedJob admit(String jobId, JobRequest request) {
    RequestText.check(request);
    if (request.specYaml().isBlank()) {
      throw new InvalidInputException(
          "spec_yaml", "spec_yaml is required: the job spec as YAML text");
    }
    if (request.specYaml().length() > MAX_SPEC_CHARS) {
      throw new InvalidInputException(
          "spec_yaml", "spec_yaml is longer than " + MAX_SPEC_CHARS + " characters");
    }
    if (request.outputDirectory().isBlank()) {
      throw new InvalidInputException(
          "output_dir",
          "output_dir is required: the job's folder, relative to the service's results root");
    }
    JobSpec spec;
    try {
      spec = JobSpec.parse(request.specYaml(), Path.of(jobId));
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          e.field() == null || e.field().equals("SPEC") ? "spec_yaml" : "spec_yaml." + e.field(),
          e.getMessage());
    }
    if (!spec.importedRuns().isEmpty()) {
      throw new InvalidInputException(
          "spec_yaml.runs",
          "runs: (imported TREC runs) are files on the client; the eval service does not read"
              + " them: run the spec locally (tenbin run) or import each with tenbin import-run");
    }
    spec =
        confineLengthTokenizer(spec)
            .withDefaultShards(defaultShards)
            .withDefaultReplicas(defaultReplicas);
    List<Integer> documentOf = matchTaskSets(spec, request.taskSets());
    List<TaskSetSpec> taskSets = new ArrayList<>();
    List<Map<Path, String>> pathFields = new ArrayList<>();
    for (int i = 0; i < documentOf.size(); i++) {
      int j = documentOf.get(i);
      Map<Path, String> fields = new HashMap<>();
      taskSets.add(parse(j, request.taskSets().get(j), fields));
      pathFields.add(fields);
    }
    List<TaskSelection.Selected> selected;
    try {
      selected = TaskSelection.select(spec, taskSets);
    } catch (InvalidInputException e) {
      throw new InvalidInputException("spec_yaml." + e.field(), e.getMessage());
    }
    for (TaskSelection.Selected task : selected) {
      if (task.task().source() instanceof LocalBeir local) {
        int j = documentOf.get(task.taskSetIndex());
        String field =
            "task_sets["
                + j
                + "]."
                + pathFields.get(task.taskSetIndex()).getOrDefault(local.directory(), "tasks");
        checkBeirFolder(field, task.task().name(), local.directory(), local.split());
      }
    }
    Path directory = outputDirectory(request.outputDirectory());
    SpecModels.check(spec, models);
    return new AdmittedJob(jobId, spec, taskSets, directory, request);
  }

  /**
   * A length tokenizer given as a path is read by the service: it must lie inside the data roots
   * (relative paths resolve against the first); built-in model ids need no file.
   */
  private JobSpec confineLengthTokenizer(JobSpec spec) {
    PositionSettings positions = spec.positions();
    if (LengthTokenizer.isBuiltIn(positions.tokenizer())) {
      return spec;
    }
    Path base = dataRoots.isEmpty() ? Path.of("/") : dataRoots.roots().getFirst();
    Path real = dataRoots.resolve("spec_yaml.positions.tokenizer", positions.tokenizer(), base);
    return spec.withPositions(
        new PositionSettings(real.toString(), positions.minCount(), positions.reference()));
  }

  /** For each task set the spec names, the index of the document sent for it. */
  private static List<Integer> matchTaskSets(
      JobSpec spec, List<JobRequest.TaskSetDocument> documents) {
    if (documents.size() > MAX_TASK_SETS) {
      throw new InvalidInputException("task_sets", "more than " + MAX_TASK_SETS + " task sets");
    }
    Map<String, Integer> byName = new LinkedHashMap<>();
    for (int j = 0; j < documents.size(); j++) {
      JobRequest.TaskSetDocument document = documents.get(j);
      if (document.name().isBlank()) {
        throw new InvalidInputException(
            "task_sets[" + j + "].name",
            "task_sets[" + j + "].name is required: the name the spec uses");
      }
      if (byName.putIfAbsent(document.name(), j) != null) {
        throw new InvalidInputException(
            "task_sets[" + j + "].name",
            "task_sets[" + j + "]: " + SafeText.quote(document.name()) + " is sent twice");
      }
      if (document.yaml().length() > MAX_TASK_SET_CHARS) {
        throw new InvalidInputException(
            "task_sets[" + j + "].yaml",
            "task_sets[" + j + "] is longer than " + MAX_TASK_SET_CHARS + " characters");
      }
    }
    List<Integer> documentOf = new ArrayList<>();
    for (int i = 0; i < spec.taskSetNames().size(); i++) {
      String name = spec.taskSetNames().get(i);
      Integer j = byName.remove(name);
      if (j == null) {
        throw new InvalidInputException(
            "spec_yaml.task_sets[" + i + "]",
            "the spec names task set "
                + SafeText.quote(name)
                + " but it was not sent with the job: the eval service"
                + " reads no task set from its own disk (`tenbin job submit` sends the spec's task sets)");
      }
      documentOf.add(j);
    }
    if (!byName.isEmpty()) {
      var extra = byName.entrySet().iterator().next();
      throw new InvalidInputException(
          "task_sets[" + extra.getValue() + "].name",
          "task_sets["
              + extra.getValue()
              + "]: "
              + SafeText.quote(extra.getKey())
              + " is not named by the spec's task_sets");
    }
    return documentOf;
  }

  private TaskSetSpec parse(int j, JobRequest.TaskSetDocument document, Map<Path, String> fields) {
    String prefix = "task_sets[" + j + "]";
    Path base;
    if (document.baseDirectory().isEmpty()) {
      base = dataRoots.isEmpty() ? Path.of("/") : dataRoots.roots().getFirst();
    } else {
      try {
        base = Path.of(document.baseDirectory());
      } catch (InvalidPathException e) {
        base = null;
      }
      if (base == null || !base.isAbsolute()) {
        throw new InvalidInputException(
            prefix + ".base_dir",
            prefix
                + ".base_dir "
                + SafeText.quote(document.baseDirectory())
                + " is not an absolute path");
      }
    }
    String source =
        prefix + " (" + SafeText.escaped(document.name(), SafeText.MAX_QUOTED_CHARS) + ")";
    try {
      return new TaskSetParser(new Confined(fields))
          .parse(document.yaml(), source, base.normalize());
    } catch (TenbinException e) {
      String field =
          e.field() == null || e.field().isEmpty() || e.field().equals("spec") ? "yaml" : e.field();
      throw retarget(e, prefix + "." + field);
    }
  }

  private void checkBeirFolder(String field, String task, Path folder, String split) {
    if (!Files.isDirectory(folder)) {
      throw new InvalidInputException(
          field, field + ": task " + task + ": dataset folder not found: " + folder);
    }
    List<String> names = new java.util.ArrayList<>(BEIR_FILES);
    names.add("qrels/" + split + ".tsv");
    for (String name : names) {
      Path file = dataRoots.check(field, folder.resolve(name), "(task " + task + ") " + name);
      if (!Files.isRegularFile(file)) {
        throw new InvalidInputException(
            field,
            field
                + ": task "
                + task
                + ": missing "
                + name
                + " in "
                + folder
                + " (a BEIR folder has corpus.jsonl, queries.jsonl and qrels/test.tsv)");
      }
    }
  }

  /**
   * The folder of an imported job ({@code imports/ID}), confined as a job's output folder is; it
   * must not exist yet.
   */
  Path importFolder(String relative) {
    Path directory = outputDirectory(relative);
    if (Files.exists(directory)) {
      throw new AlreadyExistsException(
          "output_dir", "the import folder " + SafeText.quote(relative) + " exists already");
    }
    return directory;
  }

  /**
   * A local BEIR folder named by a client (absolute, or relative to the first data root), confined
   * to the data roots, with its corpus, queries and {@code qrels/SPLIT.tsv}.
   *
   * @param field the request field that names it, for errors
   */
  public Path localDataset(String field, String raw, String split) {
    if (raw == null || raw.isBlank()) {
      throw new InvalidInputException(
          field, field + " is required: a BEIR folder in the data roots");
    }
    if (dataRoots.isEmpty()) {
      throw new PermissionDeniedException(
          field, "this eval service reads no local dataset (it was started without --data-root)");
    }
    Path folder = dataRoots.resolve(field, raw, dataRoots.roots().getFirst());
    checkBeirFolder(field, raw, folder, split);
    return folder;
  }

  private Path outputDirectory(String raw) {
    Path root = resultsRoot();
    Path directory = resultsRoot.resolve("output_dir", raw, root);
    if (directory.equals(root)) {
      throw new InvalidInputException(
          "output_dir",
          "output_dir must name a folder inside the results root, not the root itself");
    }
    if (Files.exists(directory) && !Files.isDirectory(directory)) {
      throw new InvalidInputException(
          "output_dir", "output_dir " + SafeText.quote(raw) + " exists and is not a folder");
    }
    for (Path kept : stateFolders()) {
      if (overlap(directory, kept)) {
        throw new PermissionDeniedException(
            "output_dir",
            "output_dir: "
                + SafeText.quote(raw)
                + (directory.startsWith(kept) ? " lies inside" : " holds")
                + " the eval service's state folder (its job table); choose a folder of its own"
                + " under the results root");
      }
    }
    return directory;
  }

  /**
   * What of the state folder no job folder may overlap, as real paths: the job table and the lock,
   * and the whole state folder unless the results root lies inside it (the default {@code
   * <state>/results}, whose job folders are then the only part of it jobs use).
   */
  private List<Path> stateFolders() {
    if (stateDirectory == null) {
      return List.of();
    }
    Path state = ConfinedRoots.realPath(stateDirectory);
    List<Path> kept = new ArrayList<>();
    kept.add(state.resolve("jobs"));
    kept.add(state.resolve(".lock"));
    Path root = resultsRoot();
    if (!(root.startsWith(state) && !root.equals(state))) {
      kept.add(state);
    }
    return kept;
  }

  /** Whether one of two real paths is the other or lies inside it. */
  static boolean overlap(Path a, Path b) {
    return a.startsWith(b) || b.startsWith(a);
  }

  private static TenbinException retarget(TenbinException failure, String field) {
    return switch (failure) {
      case PermissionDeniedException e -> new PermissionDeniedException(field, e.getMessage());
      case InvalidInputException e -> new InvalidInputException(field, e.getMessage());
      default -> failure;
    };
  }

  /** Local dataset paths of a submitted task set: not expanded, confined to the data roots. */
  private final class Confined implements DatasetPaths {
    private final Map<Path, String> fields;

    Confined(Map<Path, String> fields) {
      this.fields = fields;
    }

    @Override
    public Path resolve(String raw, Path base, String field) {
      if (raw.startsWith("~") || raw.contains("${")) {
        throw new IllegalArgumentException(
            SafeText.quote(raw)
                + ": ~ and ${ENV} are not expanded in jobs sent to the eval service;"
                + " write the path out (absolute, or relative to the task set file)");
      }
      Path path = dataRoots.resolve(field, raw, base);
      fields.putIfAbsent(path, field);
      return path;
    }

    @Override
    public Path found(Path folder, String field) {
      Path path = dataRoots.check(field, folder, SafeText.quote(folder.getFileName().toString()));
      fields.putIfAbsent(path, field);
      return path;
    }
  }
}
