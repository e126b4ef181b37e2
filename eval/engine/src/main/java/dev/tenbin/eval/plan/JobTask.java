package dev.tenbin.eval.plan;

import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.SystemRef;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.beir.BeirDataset;
import java.util.Map;

/**
 * One task of a job, loaded: which benchmark it belongs to, its data and their fingerprint.
 *
 * @param benchmark the task set's name
 * @param dataset the dataset the task belongs to (shared by the languages of one dataset)
 * @param task the task's name, unique in its benchmark
 * @param language the resolved ISO 639-1 code (never "auto")
 * @param domain the domain category, "" when unknown
 * @param data the collection
 * @param datasetSha the content fingerprint (local) or "hub:repo@sha/split" (hub)
 * @param provenance where the data came from (path, hub repository, requested and resolved
 *     revision)
 * @param lengthSource the task whose documents' lengths set the position-analysis buckets (its
 *     {@code length_reference:}), or null for the task's own documents
 */
public record JobTask(
    String benchmark,
    String dataset,
    String task,
    String language,
    String domain,
    BeirDataset data,
    String datasetSha,
    Map<String, String> provenance,
    LengthSource lengthSource) {

  /** A task that counts its own documents' lengths. */
  public JobTask(
      String benchmark,
      String dataset,
      String task,
      String language,
      String domain,
      BeirDataset data,
      String datasetSha,
      Map<String, String> provenance) {
    this(benchmark, dataset, task, language, domain, data, datasetSha, provenance, null);
  }

  /**
   * The task a position analysis borrows document lengths from: a parallel collection with the same
   * document ids, e.g. the source language of a translation.
   *
   * @param task its name
   * @param data its collection
   * @param datasetSha its fingerprint (part of the fingerprints of the cells that borrow)
   */
  public record LengthSource(String task, BeirDataset data, String datasetSha) {}

  /** This task as cells are keyed by it. */
  public TaskRef ref() {
    return new TaskRef(benchmark, dataset, task, language, domain);
  }

  /** The key of this task's cell of {@code system} in {@code variant} and {@code mode}. */
  public CellKey cellKey(SystemRef system, String variant, RankingMode mode) {
    return new CellKey(ref(), system, variant, mode);
  }

  /** The name of the task whose lengths are used: the borrowed one, or this task's own. */
  public String lengthTask() {
    return lengthSource == null ? task : lengthSource.task();
  }
}
