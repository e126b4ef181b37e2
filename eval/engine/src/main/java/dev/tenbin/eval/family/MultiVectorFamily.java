package dev.tenbin.eval.family;

import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.retrieval.RunScorer;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code multivector:MODEL}: late interaction (MaxSim over token vectors). */
final class MultiVectorFamily implements RetrievalFamily {
  @Override
  public String name() {
    return "multivector";
  }

  @Override
  public String description() {
    return "late interaction (MaxSim over the token vectors of a multi-vector model)";
  }

  @Override
  public boolean rescoresCandidates() {
    return true;
  }

  @Override
  public Work plan(PlanContext planner, JobTask task, RetrieverEntry entry) {
    String model = entry.retriever().model();
    ModelFacts facts = planner.encoderFacts(model);
    return new Work(
        this,
        task,
        model,
        List.of(
            planner.cell(
                task,
                model,
                name(),
                "base",
                RankingMode.RETRIEVAL,
                planner.modelIdentity(facts, "base"),
                facts.storedVersions(),
                facts.storedFacts(facts.dimension()))),
        List.of(),
        "");
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    RetrievalResult result =
        runner
            .hooks()
            .multiVector(
                new MultiVectorRetrieval(runner.services().index(), runner.services().encoder())
                    .withLatencyConcurrency(runner.settings().latencyConcurrency())
                    .withShards(runner.settings().shards())
                    .withReplicas(runner.settings().replicas()))
            .run(work.task().data(), work.model(), runner.settings().topK());
    return Map.of(
        work.cells().getFirst().fingerprint(),
        RunScorer.score(
            work.task().data(), system(work.model()), "base", RankingMode.RETRIEVAL, result));
  }
}
