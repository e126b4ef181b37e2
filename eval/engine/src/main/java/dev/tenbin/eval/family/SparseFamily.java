package dev.tenbin.eval.family;

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
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.retrieval.RunScorer;
import dev.tenbin.eval.retrieval.SparseRetrieval;
import dev.tenbin.eval.retrieval.SparseVariant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code sparse:MODEL} (learned term weights) and {@code sparse-bm25:MODEL} (the model's vocabulary
 * weighted by BM25): impact retrieval in pruning variants ({@code sparse_qQ_dD}).
 */
final class SparseFamily implements RetrievalFamily {
  private final String name;
  private final boolean bm25Weights;

  SparseFamily(String name, boolean bm25Weights) {
    this.name = name;
    this.bm25Weights = bm25Weights;
  }

  static boolean isSparseVariant(String variant) {
    return variant.startsWith("sparse_");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return bm25Weights
        ? "the model's vocabulary weighted by BM25 over an impact index"
        : "learned sparse term weights of an encoder model over an impact index (pruning variants sparse_qQ_dD)";
  }

  @Override
  public void checkVariant(String field, String variant) {
    SparseVariant.parse(variant);
  }

  @Override
  public List<String> evalVariants(List<String> flags) {
    List<String> variants = new ArrayList<>();
    flags.stream()
        .filter(flag -> !HybridFusion.isFusionVariant(flag))
        .forEach(flag -> SparseVariant.parse(flag).forEach(v -> variants.add(v.name())));
    return variants.isEmpty() ? List.of(SparseVariant.BASE.name()) : variants;
  }

  @Override
  public boolean rescoresCandidates() {
    return !bm25Weights;
  }

  @Override
  public Work plan(PlanContext planner, JobTask task, RetrieverEntry entry) {
    String model = entry.retriever().model();
    ModelFacts facts = planner.encoderFacts(model);
    LinkedHashSet<String> variants = new LinkedHashSet<>();
    for (String variant : entry.variants().isEmpty() ? List.of("base") : entry.variants()) {
      SparseVariant.parse(variant).forEach(v -> variants.add(v.name()));
    }
    List<PlannedCell> cells = new ArrayList<>();
    for (String variant : variants) {
      cells.add(
          planner.cell(
              task,
              model,
              name,
              variant,
              RankingMode.RETRIEVAL,
              planner.modelIdentity(facts, variant),
              facts.storedVersions(),
              facts.storedFacts(0)));
    }
    return new Work(this, task, model, cells, List.of(), "");
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    List<SparseVariant> variants = new ArrayList<>();
    for (PlannedCell cell : work.cells()) {
      if (missing.contains(cell.fingerprint())) {
        variants.addAll(SparseVariant.parse(cell.key().variant()));
      }
    }
    Map<String, RetrievalResult> results =
        runner
            .hooks()
            .sparse(
                new SparseRetrieval(runner.services().index(), runner.services().encoder())
                    .withLatencyConcurrency(runner.settings().latencyConcurrency())
                    .withShards(runner.settings().shards())
                    .withReplicas(runner.settings().replicas()))
            .run(work.task().data(), work.model(), bm25Weights, runner.settings().topK(), variants);
    Map<String, CellResult> runs = new LinkedHashMap<>();
    for (PlannedCell cell : work.cells()) {
      RetrievalResult result = results.get(cell.key().variant());
      if (result != null) {
        runs.put(
            cell.fingerprint(),
            RunScorer.score(
                work.task().data(),
                system(work.model()),
                cell.key().variant(),
                RankingMode.RETRIEVAL,
                result));
      }
    }
    return runs;
  }
}
