package dev.tenbin.eval.plan;

import dev.tenbin.eval.retrieval.DenseRuns;
import dev.tenbin.eval.retrieval.EncodeProgress;
import dev.tenbin.eval.services.Services;
import dev.tenbin.eval.store.CellRecord;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What a family runs its work with: the services, the job's settings, where encode progress goes,
 * the hooks the job adds around retrieval (embedding cache, LightRetriever preparation) and the
 * job's candidate set files. The job's work runner implements it.
 */
public interface WorkContext {
  /** The index, encoder and rerank services of the job. */
  Services services();

  /** The job's settings. */
  JobSettings settings();

  /** Where encode progress goes (the job's listener). */
  EncodeProgress progress();

  /** The embedding cache and LightRetriever preparation the retrieval classes run through. */
  RetrievalHooks hooks();

  /** The job's stored cell with that fingerprint (a hybrid's component), if it is stored. */
  Optional<CellRecord> storedCell(String fingerprint);

  /** The file of the candidate set with that fingerprint. */
  Path candidateFile(String fingerprint);

  /** The dense runs of the job's models (its similarity, depth and embedding cache). */
  default DenseRuns denseRuns() {
    return new DenseRuns(
        services(),
        hooks()::dense,
        progress(),
        settings().similarity(),
        settings().topK(),
        settings().latencyConcurrency(),
        settings().shards(),
        settings().replicas());
  }
}
