package dev.tenbin.eval.family;

import dev.tenbin.eval.candidates.CandidateSet;
import dev.tenbin.eval.candidates.CandidateSetBuilder;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.plan.WorkFamily;
import dev.tenbin.eval.result.CellResult;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The candidate sets of a task (BM25 and hybrid), written as artifacts for the rerankers. */
final class CandidateSetsWork implements WorkFamily {
  @Override
  public String name() {
    return "candidates";
  }

  @Override
  public String label(Work work) {
    return "candidate sets";
  }

  @Override
  public boolean writesArtifacts() {
    return true;
  }

  @Override
  public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
    List<CandidateSet> sets =
        runner
            .hooks()
            .candidates(
                new CandidateSetBuilder(
                        runner.services().index(), runner.services().encoder(), runner.progress())
                    .withShards(runner.settings().shards(), runner.settings().replicas()))
            .build(work.task().data(), work.task().language(), work.model());
    List<String> kinds = runner.settings().candidateSets();
    for (int i = 0; i < kinds.size(); i++) {
      for (CandidateSet set : sets) {
        if (set.kind().equals(kinds.get(i))) {
          set.write(runner.candidateFile(work.artifacts().get(i)));
        }
      }
    }
    return Map.of();
  }
}
