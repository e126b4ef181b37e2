package dev.tenbin.eval.job;

import dev.tenbin.eval.plan.JobSettings;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalHooks;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs one work item through the services (its {@link Work#kind() family} does the work, with the
 * services, spec, progress and hooks given here) and turns its runs into cell records. Only the
 * cells still missing are returned (a dense model encodes and indexes once and searches only the
 * missing variants).
 */
public final class WorkRunner implements WorkContext {
  private final Services services;
  private final JobSpec spec;
  private final Path candidatesDirectory;
  private final EncodeProgress progress;
  private final RetrievalHooks cache;
  private final ResultStore store;

  /**
   * @param store the job's stored cells (what a hybrid fuses)
   */
  public WorkRunner(
      Services services,
      JobSpec spec,
      Path candidatesDirectory,
      EncodeProgress progress,
      RetrievalHooks cache,
      ResultStore store) {
    this.services = services;
    this.spec = spec;
    this.candidatesDirectory = candidatesDirectory;
    this.progress = progress;
    this.cache = cache;
    this.store = store;
  }

  /** The job's stored cell with that fingerprint, if it is stored. */
  @Override
  public Optional<CellRecord> storedCell(String fingerprint) {
    return store.read(fingerprint);
  }

  /** The candidate set file of a fingerprint. */
  public static Path candidateFile(Path candidatesDirectory, String fingerprint) {
    return candidatesDirectory.resolve(fingerprint + ".jsonl");
  }

  /** Runs {@code work}; returns records for the cells whose fingerprints are in {@code missing}. */
  public List<CellRecord> run(Work work, Set<String> missing) {
    return records(work, missing, runs(work, missing), spec.positions());
  }

  /**
   * Runs {@code work} through its family; returns the evaluated run of each cell it computed, by
   * fingerprint.
   */
  public Map<String, CellResult> runs(Work work, Set<String> missing) {
    return work.kind().run(this, work, missing);
  }

  /** The records of the cells of {@code work} that are in {@code missing} and were computed. */
  public static List<CellRecord> records(
      Work work,
      Set<String> missing,
      Map<String, CellResult> runs,
      dev.tenbin.eval.positions.PositionSettings positions) {
    List<CellRecord> records = new ArrayList<>();
    for (PlannedCell cell : work.cells()) {
      CellResult run = runs.get(cell.fingerprint());
      if (run != null && missing.contains(cell.fingerprint())) {
        records.add(CellRecords.of(cell, run, work.task(), positions));
      }
    }
    return records;
  }

  @Override
  public Services services() {
    return services;
  }

  public JobSpec spec() {
    return spec;
  }

  @Override
  public JobSettings settings() {
    return spec.settings();
  }

  /** Where encode progress goes (the job's listener). */
  @Override
  public EncodeProgress progress() {
    return progress;
  }

  /** The embedding cache and LightRetriever preparation the retrieval classes run through. */
  @Override
  public RetrievalHooks hooks() {
    return cache;
  }

  /** The file of the candidate set with that fingerprint. */
  @Override
  public Path candidateFile(String fingerprint) {
    return candidateFile(candidatesDirectory, fingerprint);
  }
}
