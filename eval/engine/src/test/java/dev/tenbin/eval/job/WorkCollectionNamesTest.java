package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkFamily;
import dev.tenbin.eval.retrieval.WorkCollections;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A work item's index collections are named from its job and itself: the same work item run again
 * (the job resumed in its folder) names them alike, another work item or another job never does.
 */
class WorkCollectionNamesTest {
  private static final String SPEC = "name: j\ntask_sets: [t.yaml]\nretrievers: [bm25]\n";

  @TempDir Path tmp;

  /** The collection names the work items asked for, in order. */
  private final List<String> names = new ArrayList<>();

  /** Work that asks for its collection's name, notes it and stores no cell (so it runs again). */
  private final WorkFamily naming =
      new WorkFamily() {
        @Override
        public String name() {
          return "bm25";
        }

        @Override
        public Map<String, dev.tenbin.eval.result.CellResult> run(
            dev.tenbin.eval.plan.WorkContext runner, Work work, Set<String> missing) {
          WorkCollections collections = WorkCollections.CURRENT.get();
          String name = collections.name("bm25 10");
          names.add(name);
          collections.notes().accept("named " + name);
          return Map.of();
        }
      };

  /** Two work items of one task differing only in their model. */
  private List<Work> plan() {
    Work bm25 =
        PlanFixtures.plan(
                SPEC,
                PlanFixtures.noModels(),
                PlanFixtures.noModels(),
                PlanFixtures.emptyTask("sha"))
            .getFirst();
    return List.of(
        new Work(naming, bm25.task(), "", bm25.cells(), bm25.artifacts(), ""),
        new Work(naming, bm25.task(), "k1=1.2,b=0.75", bm25.cells(), bm25.artifacts(), ""));
  }

  private void run(Path out) {
    new JobRunner(null, out, new JobListener() {}, Cancellation.NEVER, null)
        .run(JobSpec.parse(SPEC, Path.of("/jobs/job.yaml")), plan());
  }

  @Test
  void theSameWorkItemRunAgainNamesItsCollectionAlikeAndNoOtherWorkItemOrJobDoes()
      throws Exception {
    run(tmp.resolve("job"));
    run(tmp.resolve("job"));
    run(tmp.resolve("other-job"));

    assertThat(names).hasSize(6).allMatch(name -> name.matches("eval-[0-9a-f]{32}"));
    // The job run again: the same names, work item by work item.
    assertThat(names.subList(2, 4)).isEqualTo(names.subList(0, 2));
    // Two work items of one job, and the same work items in another job: all different.
    assertThat(Set.of(names.get(0), names.get(1), names.get(4), names.get(5))).hasSize(4);
    // The job's key is kept in its folder, and the names' notes reach its events.
    assertThat(tmp.resolve("job").resolve(JobRunner.COLLECTION_KEY_FILE)).isRegularFile();
    assertThat(Files.readString(tmp.resolve("job/events.jsonl")))
        .contains("\"work_note\"")
        .contains("named " + names.get(0));
  }

  @Test
  void oneWorkItemsCollectionsOfDifferentContentGetDifferentNames() {
    WorkCollections collections = new WorkCollections("job\nbm25", line -> {});

    assertThat(collections.name("bm25 10")).isEqualTo(collections.name("bm25 10"));
    assertThat(collections.name("bm25 10")).isNotEqualTo(collections.name("bm25 11"));
    assertThat(collections.name("dense m 10")).isNotEqualTo(collections.name("dense n 10"));
    // The key and the content cannot trade characters to make one name.
    assertThat(new WorkCollections("a", line -> {}).name("b\nc"))
        .isNotEqualTo(new WorkCollections("a\nb", line -> {}).name("c"));
  }
}
