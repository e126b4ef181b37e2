package dev.tenbin.eval.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.Sha256;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.plan.WorkContext;
import dev.tenbin.eval.plan.WorkFamily;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.testing.CellKeys;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How a job's work is split into shards: whole work groups, balanced by estimated cost. */
class ShardAssignmentTest {
  /** Costs set by each test, keyed by work item. */
  private final Map<Work, Double> costs = new HashMap<>();

  private final WorkCost cost = work -> costs.getOrDefault(work, 1.0);

  @Test
  void everyCellLandsInExactlyOneShardAndTheSameAssignmentComesFromAnyPlanOrder() {
    List<Work> plan = new ArrayList<>();
    Random random = new Random(7);
    for (int t = 0; t < 6; t++) {
      plan.add(work("bm25", "task" + t, "", List.of("base"), 0.05));
      for (String model : List.of("m1", "m2", "m3")) {
        plan.add(work("dense", "task" + t, model, List.of("base", "int8"), random.nextInt(50)));
      }
    }
    ShardAssignment assignment = ShardAssignment.of(plan, 4, cost);

    List<String> assigned = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      for (Work work : assignment.works(new Shard(i, 4), plan)) {
        work.cells().forEach(c -> assigned.add(c.fingerprint()));
      }
    }
    List<String> planned =
        plan.stream().flatMap(w -> w.cells().stream()).map(PlannedCell::fingerprint).toList();
    assertThat(assigned).hasSameSizeAs(planned).containsExactlyInAnyOrderElementsOf(planned);

    List<Work> shuffled = new ArrayList<>(plan);
    Collections.shuffle(shuffled, new Random(11));
    ShardAssignment again = ShardAssignment.of(shuffled, 4, cost);
    for (int i = 0; i < 4; i++) {
      assertThat(cellsOf(again.works(new Shard(i, 4), shuffled)))
          .as("shard %d from a shuffled plan", i)
          .containsExactlyInAnyOrderElementsOf(cellsOf(assignment.works(new Shard(i, 4), plan)));
    }
  }

  @Test
  void theCostliestWorkGoesFirstOntoTheLightestShardWhereCountingCellsWouldOverloadOne() {
    // One large collection under one model (1 cell) and three small ones (1 cell each). Splitting
    // two ways by cell count puts two cells per shard, so the large one shares its shard with a
    // small one (120 against 60); by cost it gets a shard of its own (90 against 90).
    Work large = work("dense", "large", "m", List.of("base"), 90);
    Work small1 = work("dense", "small1", "m", List.of("base"), 30);
    Work small2 = work("dense", "small2", "m", List.of("base"), 30);
    Work small3 = work("dense", "small3", "m", List.of("base"), 30);
    List<Work> plan = List.of(small1, large, small2, small3);

    ShardAssignment assignment = ShardAssignment.of(plan, 2, cost);

    assertThat(assignment.works(new Shard(0, 2), plan)).containsExactly(large);
    assertThat(assignment.works(new Shard(1, 2), plan)).containsExactly(small1, small2, small3);
    assertThat(assignment.load(0)).isEqualTo(90.0);
    assertThat(assignment.load(1)).isEqualTo(90.0);
    assertThat(assignment.cells(0)).isEqualTo(1);
    assertThat(assignment.cells(1)).isEqualTo(3);
    double countBalancedMakespan = Math.max(90 + 30, 30 + 30);
    assertThat(Math.max(assignment.load(0), assignment.load(1))).isLessThan(countBalancedMakespan);
  }

  @Test
  void aModelsVariantsAndFamiliesOnOneTaskAndRerankersWithTheirCandidateSetsStayTogether() {
    Work denseBase = work("dense", "t", "m", List.of("base"), 10);
    Work denseInt8 = work("dense", "t", "m", List.of("int8", "binary"), 10);
    Work light = work("light", "t", "m", List.of("base"), 5);
    Work otherTask = work("dense", "u", "m", List.of("base"), 10);
    Work bm25 = work("bm25", "t", "", List.of("base"), 1);
    Work candidates =
        new Work(family("candidates"), task("t"), "cand-model", List.of(), List.of("set-t"), "");
    costs.put(candidates, 10.0);
    Work rerankA = rerank("t", "ce-a", "set-t");
    Work rerankB = rerank("t", "ce-b", "set-t");
    Work candidateModel = work("dense", "t", "cand-model", List.of("base"), 10);
    List<Work> plan =
        List.of(
            denseBase,
            denseInt8,
            light,
            otherTask,
            bm25,
            candidateModel,
            candidates,
            rerankA,
            rerankB);

    List<WorkGroup> groups = ShardAssignment.groups(plan, cost);

    assertThat(groups)
        .extracting(WorkGroup::works)
        .containsExactly(
            List.of(denseBase, denseInt8, light),
            List.of(otherTask),
            List.of(bm25),
            List.of(candidateModel, candidates, rerankA, rerankB));
    assertThat(groups.getFirst().cost()).isEqualTo(25.0);
    assertThat(groups.getFirst().id())
        .isEqualTo(
            cellsOf(List.of(denseBase, denseInt8, light)).stream().sorted().findFirst().get());
    ShardAssignment assignment = ShardAssignment.of(plan, 3, cost);
    for (int i = 0; i < 3; i++) {
      List<Work> works = assignment.works(new Shard(i, 3), plan);
      assertThat(works.contains(rerankA)).isEqualTo(works.contains(candidates));
      assertThat(works.contains(denseInt8)).isEqualTo(works.contains(denseBase));
    }
  }

  @Test
  void moreShardsThanGroupsLeavesSomeShardsEmpty() {
    List<Work> plan = List.of(work("dense", "t", "m", List.of("base", "int8"), 3));
    ShardAssignment assignment = ShardAssignment.of(plan, 3, cost);
    assertThat(assignment.works(new Shard(0, 3), plan)).hasSize(1);
    assertThat(assignment.works(new Shard(1, 3), plan)).isEmpty();
    assertThat(assignment.works(new Shard(2, 3), plan)).isEmpty();
  }

  @Test
  void aShardIsIOfKZeroBased() {
    assertThat(Shard.parse("2/3")).isEqualTo(new Shard(2, 3));
    assertThat(Shard.parse("0/1").fileStem()).isEqualTo("shard-0-of-1");
    assertThatThrownBy(() -> Shard.parse("3/3")).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> Shard.parse("1")).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> Shard.parse("a/b")).isInstanceOf(InvalidInputException.class);
  }

  private Work work(String family, String task, String model, List<String> variants, double c) {
    List<PlannedCell> cells = new ArrayList<>();
    for (String variant : variants) {
      CellKey key = CellKeys.key().task(task).system(family, model).variant(variant).build();
      cells.add(new PlannedCell(key, Sha256.hex(key.toString()), Map.of(), Map.of()));
    }
    Work work = new Work(family(family), task(task), model, List.copyOf(cells), List.of(), "");
    costs.put(work, c);
    return work;
  }

  private Work rerank(String task, String reranker, String set) {
    CellKey key =
        CellKeys.key()
            .task(task)
            .system("rerank", reranker)
            .variant("candidates_hybrid")
            .mode(RankingMode.RERANK)
            .build();
    Work work =
        new Work(
            family("rerank"),
            task(task),
            reranker,
            List.of(new PlannedCell(key, Sha256.hex(key.toString()), Map.of(), Map.of())),
            List.of(set),
            "hybrid");
    costs.put(work, 20.0);
    return work;
  }

  private static JobTask task(String name) {
    return new JobTask("bench", name, name, "en", "", null, "sha-" + name, Map.of());
  }

  private static List<String> cellsOf(List<Work> works) {
    return works.stream().flatMap(w -> w.cells().stream()).map(PlannedCell::fingerprint).toList();
  }

  private static WorkFamily family(String name) {
    return new WorkFamily() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Map<String, CellResult> run(WorkContext runner, Work work, Set<String> missing) {
        throw new UnsupportedOperationException();
      }
    };
  }
}
