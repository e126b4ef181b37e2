package dev.tenbin.eval.plan;

import dev.tenbin.eval.result.CellResult;
import java.util.Map;
import java.util.Set;

/**
 * What a work item of a job is: a {@link RetrievalFamily} run over a whole corpus, the candidate
 * sets of a task, or a reranker over one of them. It names its work and runs it.
 */
public interface WorkFamily {
  /** The family's name, e.g. "dense", "candidates" or "rerank"; also its key in job timings. */
  String name();

  /** What {@code work} computes, e.g. "dense:bge-small-en-v1.5" (without the task). */
  default String label(Work work) {
    return name() + ":" + work.model();
  }

  /** Whether the work writes artifacts (candidate sets) instead of cells. */
  default boolean writesArtifacts() {
    return false;
  }

  /**
   * When a job runs as {@code shards} processes ({@code tenbin run --shard I/K}, the pods of an
   * Indexed Job), the part of {@code work}'s encode that shard {@code shard} does for it before its
   * own work items, whichever shard runs {@code work}: work items stay whole, the corpus slices of
   * their encodes are spread. Returns a line saying what it did, or null when it did nothing (the
   * default: the family has nothing to spread).
   */
  default String encodeShare(
      WorkContext runner, Work work, Set<String> missing, int shard, int shards) {
    return null;
  }

  /**
   * Runs {@code work} through the runner's services; returns the evaluated run of each cell it
   * computed, by fingerprint (at least those in {@code missing}).
   */
  Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing);
}
