package dev.tenbin.eval.family;

import dev.tenbin.eval.plan.CellIdentity;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlanContext;
import dev.tenbin.eval.plan.RetrievalFamily;
import dev.tenbin.eval.plan.RetrieverEntry;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.provenance.TenbinVersion;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.retrieval.Bm25Retrieval;
import dev.tenbin.eval.retrieval.Bm25Settings;
import dev.tenbin.eval.retrieval.RetrievalResult;
import dev.tenbin.eval.retrieval.RunScorer;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code bm25}: Lucene BM25 over title and text with the task language's analyzer. */
final class Bm25Family implements RetrievalFamily {
  @Override
  public String name() {
    return "bm25";
  }

  @Override
  public String usage() {
    return "bm25";
  }

  @Override
  public String description() {
    return "Lucene BM25 (k1=0.9, b=0.4) over title and text with the language's analyzer";
  }

  @Override
  public boolean takesModel() {
    return false;
  }

  /**
   * "bm25" for the default parameters (model "" or "bm25"); "bm25:k1=1.2,b=0.75" for others (model
   * {@link Bm25Settings#describe()}).
   */
  @Override
  public String system(String model) {
    return model.isEmpty() || model.equals(name()) ? name() : name() + ":" + model;
  }

  @Override
  public Work plan(PlanContext planner, JobTask task, RetrieverEntry entry) {
    // The defaults keep the identity (and fingerprint) BM25 cells always had.
    Bm25Settings bm25 = entry.bm25();
    String model = bm25.isDefault() ? "" : bm25.describe();
    CellIdentity identity =
        CellIdentity.empty()
            .with("lucene", TenbinVersion.lucene())
            .with("bm25", "k1=" + bm25.k1() + " b=" + bm25.b() + " title+text");
    return new Work(
        this,
        task,
        model,
        List.of(
            planner.cell(
                task,
                model.isEmpty() ? name() : model,
                name(),
                "base",
                RankingMode.RETRIEVAL,
                identity,
                Map.of("lucene_version", TenbinVersion.lucene()),
                Map.of())),
        List.of(),
        "");
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    RetrievalResult result =
        new Bm25Retrieval(runner.services().index())
            .withSettings(Bm25Settings.parse(work.model()))
            .withLatencyConcurrency(runner.settings().latencyConcurrency())
            .withShards(runner.settings().shards())
            .withReplicas(runner.settings().replicas())
            .run(work.task().data(), work.task().language(), runner.settings().topK());
    return Map.of(
        work.cells().getFirst().fingerprint(),
        RunScorer.score(
            work.task().data(), system(work.model()), "base", RankingMode.RETRIEVAL, result));
  }
}
