package dev.tenbin.eval.family;

import dev.tenbin.eval.EvalRun;
import dev.tenbin.eval.RunMode;
import dev.tenbin.eval.RunScorer;
import dev.tenbin.eval.job.JobPlanner;
import dev.tenbin.eval.job.JobSpec;
import dev.tenbin.eval.job.JobTask;
import dev.tenbin.eval.job.ModelFacts;
import dev.tenbin.eval.job.Work;
import dev.tenbin.eval.job.WorkRunner;
import dev.tenbin.eval.retrieval.MultiVectorRetrieval;
import dev.tenbin.eval.retrieval.RetrievalResult;
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
  public Work plan(JobPlanner planner, JobTask task, JobSpec.RetrieverEntry entry) {
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
                RunMode.RETRIEVAL,
                planner.modelIdentity(facts, "base"),
                JobPlanner.modelVersions(facts),
                JobPlanner.modelFacts(facts, facts.dimension()))),
        List.of(),
        "");
  }

  @Override
  public Map<String, EvalRun> run(WorkRunner runner, Work work, Set<String> missing) {
    RetrievalResult result =
        runner
            .hooks()
            .multiVector(
                new MultiVectorRetrieval(
                    runner.services().indexChannel(), runner.services().encoderChannel()))
            .run(work.task().data(), work.model(), runner.spec().topK());
    return Map.of(
        work.cells().getFirst().fingerprint(),
        RunScorer.score(
            work.task().data(), system(work.model()), "base", RunMode.RETRIEVAL, result));
  }
}
