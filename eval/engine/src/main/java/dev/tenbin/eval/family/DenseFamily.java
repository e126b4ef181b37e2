package dev.tenbin.eval.family;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.retrieval.DenseRetrieval;
import dev.tenbin.eval.retrieval.DenseVariant;
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.proto.index.v1.Quantization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code dense:MODEL}: exact and quantized dense retrieval; a model's efficiency variants share one
 * encode and one index. Without variants, the automatic ones plus truncations to the Matryoshka
 * dimensions the model's card declares it was trained for, and to no others (HAKARI's rule: a model
 * not trained for truncation does not get it presented as a feature). Any model may still be
 * truncated by naming {@code truncateN} explicitly: its leading N dimensions, renormalised under
 * cosine, reported under that name as plain truncation.
 */
final class DenseFamily implements RetrievalFamily {
  @Override
  public String name() {
    return "dense";
  }

  @Override
  public String description() {
    return "dense embeddings of an encoder model, in efficiency variants (int8, binary, rescoring, truncation)";
  }

  @Override
  public void checkVariant(String field, String variant) {
    DenseVariant.parse(variant);
  }

  @Override
  public List<String> evalVariants(List<String> flags) {
    List<String> variants =
        flags.stream()
            .filter(v -> !SparseFamily.isSparseVariant(v) && !HybridFusion.isFusionVariant(v))
            .toList();
    return variants.isEmpty()
        ? DenseVariant.automatic().stream().map(DenseVariant::name).toList()
        : variants;
  }

  @Override
  public boolean rescoresCandidates() {
    return true;
  }

  @Override
  public Work plan(PlanContext planner, JobTask task, RetrieverEntry entry) {
    String model = entry.retriever().model();
    ModelFacts facts = planner.encoderFacts(model);
    List<PlannedCell> cells = new ArrayList<>();
    for (String variant : variants(entry, facts)) {
      DenseVariant parsed = DenseVariant.parse(variant);
      if (facts.dimension() > 0 && parsed.truncate() >= facts.dimension()) {
        throw new InvalidInputException(
            "variants",
            "variant '"
                + variant
                + "' of "
                + model
                + " keeps "
                + parsed.truncate()
                + " dimensions, but the model outputs "
                + facts.dimension()
                + ": truncate to fewer");
      }
      Map<String, Double> modelFacts =
          facts.storedFacts(parsed.truncate() > 0 ? parsed.truncate() : facts.dimension());
      cells.add(
          planner.cell(
              task,
              model,
              name(),
              variant,
              RankingMode.RETRIEVAL,
              withIndexIdentity(planner.modelIdentity(facts, variant), variant),
              facts.storedVersions(),
              modelFacts));
    }
    return new Work(this, task, model, cells, List.of(), "");
  }

  /**
   * {@code identity} with what an efficiency variant's index adds to it: an HNSW graph over int8
   * holds the vectors with one scale for all dimensions since db7101b (before, the scan's
   * per-dimension codes), so such cells get an identity of their own and cells stored before are
   * not taken for them. Other variants keep their fingerprints.
   */
  static CellIdentity withIndexIdentity(CellIdentity identity, String variant) {
    DenseVariant parsed = DenseVariant.parse(variant);
    return parsed.approximate() && parsed.quantization() == Quantization.QUANTIZATION_INT8
        ? identity.with("hnsw_int8_graph", "int8, one scale for all dimensions")
        : identity;
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    List<DenseVariant> variants = missingVariants(work, missing);
    Map<String, CellResult> best =
        runner
            .denseRuns()
            .run(
                work.task().data(),
                work.model(),
                DenseRetrieval.QueryEncoding.FULL,
                variants,
                system(work.model()));
    Map<String, CellResult> runs = new LinkedHashMap<>();
    for (PlannedCell cell : work.cells()) {
      if (best.containsKey(cell.key().variant())) {
        runs.put(cell.fingerprint(), best.get(cell.key().variant()));
      }
    }
    return runs;
  }

  /**
   * The slices of the corpus that are shard {@code shard}'s, encoded into the embedding cache for
   * the shard that runs {@code work} ({@link dev.tenbin.eval.retrieval.DenseRuns#encodeShare}).
   */
  @Override
  public String encodeShare(
      WorkContext runner, Work work, Set<String> missing, int shard, int shards) {
    return shareLine(
        runner
            .denseRuns()
            .encodeShare(
                work.task().data(), work.model(), missingVariants(work, missing), shard, shards));
  }

  /**
   * The line a shard logs for its encode {@code share} of a work item's corpus; null when it had
   * none (a corpus of fewer slices than shards, or only chunked variants).
   */
  static String shareLine(DenseRetrieval.Share share) {
    if (share.shares() == 0) {
      return null;
    }
    return String.format(
        java.util.Locale.ROOT,
        "encoded %d of this shard's %d slices of %d for its work item (%d recorded before)",
        share.encoded(),
        share.shares(),
        share.slices(),
        share.shares() - share.encoded());
  }

  private static List<DenseVariant> missingVariants(Work work, Set<String> missing) {
    List<DenseVariant> variants = new ArrayList<>();
    for (PlannedCell cell : work.cells()) {
      if (missing.contains(cell.fingerprint())) {
        variants.add(DenseVariant.parse(cell.key().variant()));
      }
    }
    return variants;
  }

  private static List<String> variants(RetrieverEntry entry, ModelFacts facts) {
    if (!entry.variants().isEmpty()) {
      return entry.variants();
    }
    List<String> variants = new ArrayList<>();
    DenseVariant.automatic().forEach(v -> variants.add(v.name()));
    for (int dimension : facts.matryoshkaDimensions()) {
      if (dimension > 0 && dimension < facts.dimension()) {
        variants.add("truncate" + dimension);
        variants.add("truncate" + dimension + "_binary_rescore");
      }
    }
    return variants;
  }
}
