package dev.tenbin.eval.family;

import dev.tenbin.eval.candidates.CandidateSet;
import dev.tenbin.eval.candidates.RerankEvaluation;
import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.plan.WorkFamily;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A reranker over a stored candidate set: a cross-encoder id, or {@code FAMILY:MODEL} of a
 * retrieval family that {@linkplain RetrievalFamily#rescoresCandidates() rescores candidates}. One
 * pass gives both modes ({@link RankingMode#RERANK} and {@link
 * RankingMode#RERANK_WITHOUT_SAFEGUARD}); the cells' family is {@code rerank-FAMILY} or {@code
 * rerank-cross}.
 */
final class RerankWork implements WorkFamily {
  static final String PREFIX = "rerank-";
  static final String CROSS = "cross";

  @Override
  public String name() {
    return "rerank";
  }

  @Override
  public String label(Work work) {
    return "rerank " + work.model() + " over " + work.candidateKind();
  }

  /** The bi-encoder family a reranker id names ({@code dense:MODEL}), if any. */
  static Optional<RetrievalFamily> biEncoder(String reranker) {
    int colon = reranker.indexOf(':');
    return colon > 0
        ? Families.named(reranker.substring(0, colon)).filter(RetrievalFamily::rescoresCandidates)
        : Optional.empty();
  }

  /**
   * Plans the cells of {@code reranker} over the candidate set {@code kind} with the given
   * fingerprint.
   */
  Work plan(
      PlanContext planner,
      JobTask task,
      String reranker,
      String kind,
      String candidatesFingerprint) {
    Optional<RetrievalFamily> biEncoder = biEncoder(reranker);
    String model = biEncoder.isPresent() ? reranker.substring(reranker.indexOf(':') + 1) : reranker;
    String family = PREFIX + biEncoder.map(RetrievalFamily::name).orElse(CROSS);
    ModelFacts facts =
        biEncoder.isPresent() ? planner.encoderFacts(model) : planner.rerankerFacts(reranker);
    List<PlannedCell> cells = new ArrayList<>();
    for (RankingMode mode : RankingMode.RERANK_MODES) {
      CellIdentity identity =
          planner
              .modelIdentity(facts, "candidates_" + kind)
              .with("candidate_set", candidatesFingerprint)
              .with("reranker", reranker);
      cells.add(
          planner.cell(
              task,
              model,
              family,
              "candidates_" + kind,
              mode,
              identity,
              facts.storedVersions(),
              facts.storedFacts(facts.dimension())));
    }
    return new Work(this, task, reranker, cells, List.of(candidatesFingerprint), kind);
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    CandidateSet set = CandidateSet.read(runner.candidateFile(work.artifacts().getFirst()));
    List<CellResult> reranked =
        new RerankEvaluation(runner.services().reranker())
            .run(work.task().data(), set, work.model());
    Map<String, CellResult> runs = new LinkedHashMap<>();
    for (PlannedCell cell : work.cells()) {
      for (CellResult run : reranked) {
        if (run.mode() == cell.key().mode()) {
          runs.put(cell.fingerprint(), run);
        }
      }
    }
    return runs;
  }
}
