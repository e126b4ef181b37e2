package dev.tenbin.eval.plan;

import dev.tenbin.eval.result.RankingMode;
import java.util.Map;

/**
 * What a family plans with: the job's settings, the facts of the models it names (asked once per
 * model), and the one way every cell is keyed and fingerprinted. The job's planner implements it.
 */
public interface PlanContext {
  /** The job's settings. */
  JobSettings settings();

  /** Facts of an encoder model. */
  ModelFacts encoderFacts(String model);

  /** Facts of a cross-encoder reranker. */
  ModelFacts rerankerFacts(String reranker);

  /**
   * What identifies a model's cell: the model, the libraries that score it, similarity and variant.
   */
  CellIdentity modelIdentity(ModelFacts facts, String variant);

  /**
   * A planned cell of {@code task}: its key, its fingerprint over {@code identity} and the key, the
   * dataset and the depth, and the versions and facts stored with it.
   *
   * @param system the system's model part as the family names it ("" for BM25's defaults)
   */
  PlannedCell cell(
      JobTask task,
      String system,
      String family,
      String variant,
      RankingMode mode,
      CellIdentity identity,
      Map<String, String> versions,
      Map<String, Double> facts);
}
