package dev.tenbin.eval.job;

import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.SpanQrels;
import dev.tenbin.scoring.metrics.Qrels;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** What the job-planning tests plan: a task with no data, model facts, and the plan's cells. */
final class PlanFixtures {
  private PlanFixtures() {}

  /** Task "t" of task set "bench": no documents, queries or qrels; {@code sha} is its data. */
  static JobTask emptyTask(String sha, Map<String, String> source) {
    BeirDataset data =
        new BeirDataset(
            "t",
            Path.of("t"),
            dev.tenbin.scoring.beir.Corpus.of(List.of()),
            Map.of(),
            Qrels.of(Map.of()),
            SpanQrels.none(),
            List.of(),
            List.of());
    return new JobTask("bench", "t", "t", "en", "", data, sha, source);
  }

  static JobTask emptyTask(String sha) {
    return emptyTask(sha, Map.of());
  }

  /** Every model: 384 dimensions, 33M parameters, at {@code revision}, with these truncations. */
  static Function<String, ModelFacts> models(String revision, List<Integer> matryoshka) {
    return id ->
        new ModelFacts(
            Map.of("id", id, "revision", revision),
            Map.of("model_revision", revision),
            384,
            33_000_000,
            matryoshka);
  }

  /** Model facts a plan must not ask for. */
  static Function<String, ModelFacts> noModels() {
    return id -> {
      throw new AssertionError("the plan asked for the facts of model " + id);
    };
  }

  /** The plan of {@code spec} (a job file at /jobs/job.yaml) over {@code tasks}. */
  static List<Work> plan(
      String spec,
      Function<String, ModelFacts> encoders,
      Function<String, ModelFacts> rerankers,
      JobTask... tasks) {
    return new JobPlanner(JobSpec.parse(spec, Path.of("/jobs/job.yaml")), encoders, rerankers)
        .plan(List.of(tasks));
  }

  /** The planned cells, in plan order. */
  static List<PlannedCell> cells(List<Work> plan) {
    return plan.stream().flatMap(work -> work.cells().stream()).toList();
  }
}
