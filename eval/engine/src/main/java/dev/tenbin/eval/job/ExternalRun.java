package dev.tenbin.eval.job;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.family.Families;
import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.provenance.TenbinVersion;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.retrieval.RunScorer;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.trec.TrecRunReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A TREC run produced elsewhere, evaluated on a task and stored as a cell of its own: family
 * {@value #FAMILY}, the given name as its model (system {@code external:NAME}), variant base, mode
 * retrieval, so it appears in leaderboards, reports and exports beside the job's systems.
 *
 * <p>Tie policy: the run is read as trec_eval reads it ({@link RunOrder#TREC_EVAL}): the rank
 * column is ignored, documents are ordered by score descending and equal scores by document id
 * descending, a document repeated within a query keeps its first line; the top {@code topK} of that
 * order are kept and stored with their scores as given, so the stored cell, its metrics and
 * trec_eval on the file agree. Queries of the run that are not evaluated queries of the task are
 * ignored (counted); an evaluated query absent from the run scores zero.
 *
 * <p>Fingerprint: SHA-256 over the run file's bytes, the dataset fingerprint, the cell key (name
 * and task) and the depth. Importing the same file again is a no-op; another file, task or name is
 * another cell.
 */
public final class ExternalRun {
  /** The cell family of imported runs. */
  public static final String FAMILY = "external";

  private ExternalRun() {}

  /**
   * The outcome of an import.
   *
   * @param record the stored cell
   * @param ignoredQueries run queries that are not evaluated queries of the task
   */
  public record Imported(CellRecord record, int ignoredQueries) {}

  /**
   * The task a run made elsewhere is evaluated on: the BEIR folder {@code dataset} (qrels {@code
   * split}) under the name {@code taskName} (default: the folder's name). A task of that name among
   * {@code stored} (and of {@code benchmark}, when given) lends its benchmark, dataset, language
   * and domain, so the run joins that task's leaderboard; else {@code benchmark} (default: the
   * task's name) and {@code language} (default {@code und}).
   *
   * @param taskName the task's name, or null
   * @param benchmark the benchmark, or null
   * @param language an ISO 639-1 code, or null
   * @param stored the tasks of the cells already stored where the run goes
   */
  public static JobTask task(
      Path dataset,
      String split,
      String taskName,
      String benchmark,
      String language,
      java.util.Collection<TaskRef> stored) {
    BeirDataset data = BeirDatasetReader.read(dataset, split);
    String datasetSha = DatasetFingerprint.of(dataset, split);
    String name = taskName != null && !taskName.isBlank() ? taskName : data.name();
    Optional<TaskRef> sibling =
        stored.stream()
            .filter(t -> t.task().equals(name))
            .filter(
                t -> benchmark == null || benchmark.isBlank() || t.benchmark().equals(benchmark))
            .findFirst();
    Map<String, String> provenance = new LinkedHashMap<>();
    provenance.put("source", "local");
    provenance.put("path", dataset.toString());
    if (!data.isDefaultSplit()) {
      provenance.put("split", split);
    }
    return new JobTask(
        sibling
            .map(TaskRef::benchmark)
            .orElse(benchmark != null && !benchmark.isBlank() ? benchmark : data.name()),
        sibling.map(TaskRef::dataset).orElse(name),
        name,
        sibling
            .map(TaskRef::language)
            .orElse(
                language != null && !language.isBlank()
                    ? language.toLowerCase(java.util.Locale.ROOT)
                    : "und"),
        sibling.map(TaskRef::domain).orElse(""),
        data,
        datasetSha,
        provenance);
  }

  /** Evaluates {@code runFile} on {@code task} as system {@code external:name}. */
  public static Imported evaluate(Path runFile, String name, JobTask task, int topK) {
    if (name.isBlank() || name.codePoints().anyMatch(Character::isWhitespace)) {
      throw new InvalidInputException("--name", "--name '" + name + "' must be one word");
    }
    Map<String, List<ScoredDoc>> read = TrecRunReader.read(runFile);
    Map<String, List<ScoredDoc>> rankings = new LinkedHashMap<>();
    int ignored = 0;
    java.util.Set<String> evaluated = new java.util.HashSet<>(task.data().evaluatedQueryIds());
    for (var query : read.entrySet()) {
      if (!evaluated.contains(query.getKey())) {
        ignored++;
        continue;
      }
      List<ScoredDoc> ordered = RunOrder.TREC_EVAL.apply(query.getValue());
      rankings.put(query.getKey(), List.copyOf(ordered.subList(0, Math.min(topK, ordered.size()))));
    }
    CellKey key = task.cellKey(Families.system(FAMILY, name), "base", RankingMode.RETRIEVAL);
    String runSha = sha256(runFile);
    String fingerprint =
        CellIdentity.empty()
            .with("external_run_sha256", runSha)
            .with("key", key)
            .with("dataset_sha", task.datasetSha())
            .with("top_k", topK)
            .fingerprint();
    Map<String, String> versions = new java.util.TreeMap<>(task.provenance());
    versions.put("dataset_sha", task.datasetSha());
    versions.put("run_file", runFile.toString());
    versions.put("run_sha256", runSha);
    versions.put("tenbin_version", TenbinVersion.get());
    CellResult run =
        RunScorer.score(
            task.data(),
            key.system().name(),
            "base",
            RankingMode.RETRIEVAL,
            new RetrievalResult(rankings, 0, 0, task.data().corpus().size()));
    PlannedCell cell = new PlannedCell(key, fingerprint, versions, Map.of());
    return new Imported(CellRecords.of(cell, run, task), ignored);
  }

  private static String sha256(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      int n;
      while ((n = in.read(buffer)) > 0) {
        digest.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Imports the runs a job spec lists ({@code runs:}) into the job folder, each on its named task,
   * at the spec's depth; a run already stored (same file, task and depth) is kept.
   *
   * @param tasks the job's loaded tasks
   * @return the cells imported or found stored
   */
  public static List<CellRecord> importAll(
      JobSpec spec, List<JobTask> tasks, Path jobDirectory, java.io.PrintWriter err) {
    List<CellRecord> records = new java.util.ArrayList<>();
    List<JobSpec.ImportedRun> runs = spec.importedRuns();
    if (runs.isEmpty()) {
      return records;
    }
    dev.tenbin.eval.store.ResultStore store = dev.tenbin.eval.store.ResultStore.open(jobDirectory);
    for (int i = 0; i < runs.size(); i++) {
      JobSpec.ImportedRun run = runs.get(i);
      JobTask task =
          tasks.stream()
              .filter(t -> t.task().equals(run.task()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new InvalidInputException(
                          "runs",
                          "runs: task "
                              + run.task()
                              + " is none of the job's tasks: "
                              + String.join(", ", tasks.stream().map(JobTask::task).toList())));
      if (!Files.isRegularFile(run.file())) {
        throw new InvalidInputException("runs", "runs: " + run.file() + " is not a file");
      }
      Imported imported = evaluate(run.file(), run.name(), task, spec.topK());
      boolean stored = store.append(imported.record());
      err.printf(
          java.util.Locale.ROOT,
          "tenbin: %s %s: nDCG@10 %.4f (run %s)%n",
          stored ? "imported" : "already stored",
          imported.record().key().label(),
          imported.record().metrics().getOrDefault("ndcg@10", Double.NaN),
          run.file().getFileName());
      records.add(imported.record());
    }
    err.flush();
    return records;
  }
}
