package dev.tenbin.eval.shard;

import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.Work;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job's work split into shards, balanced by estimated cost.
 *
 * <p>Policy: the unit of assignment is a {@link WorkGroup}, never a single cell. Work items of one
 * task that run the same model (a dense model's variants, LightRetriever on that model, several
 * retriever entries naming it) share one encode of the documents through the embedding cache, so
 * they form one group; the candidate sets of a task and every reranker over them form one group
 * (the rerankers read the candidate files), joined with the work of the candidate sets' dense model
 * on that task. A hybrid joins the group of its components (it reads their stored cells). BM25 of a
 * task is a group of its own. Groups are then placed longest-processing-time first: by estimated
 * cost, largest first (ties broken by the group's id, its smallest fingerprint), each onto the
 * shard with the least estimated cost so far (ties: the lowest shard index). The result depends
 * only on the plan (fingerprints and corpus sizes), never on which cells are already stored, so
 * every shard process computes the same assignment.
 */
public final class ShardAssignment {
  private final List<List<WorkGroup>> shards;
  private final double[] loads;

  private ShardAssignment(List<List<WorkGroup>> shards, double[] loads) {
    this.shards = shards;
    this.loads = loads;
  }

  /** Splits {@code plan} into {@code count} shards with the {@link WorkCost#estimated} cost. */
  public static ShardAssignment of(List<Work> plan, int count) {
    return of(plan, count, WorkCost.estimated());
  }

  /** Splits {@code plan} into {@code count} shards, balancing {@code cost}. */
  public static ShardAssignment of(List<Work> plan, int count, WorkCost cost) {
    if (count < 1) {
      throw new IllegalArgumentException("shard count must be at least 1, got " + count);
    }
    List<WorkGroup> groups = new ArrayList<>(groups(plan, cost));
    groups.sort(
        Comparator.comparingDouble(WorkGroup::cost).reversed().thenComparing(WorkGroup::id));
    List<List<WorkGroup>> shards = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      shards.add(new ArrayList<>());
    }
    double[] loads = new double[count];
    for (WorkGroup group : groups) {
      int lightest = 0;
      for (int i = 1; i < count; i++) {
        if (loads[i] < loads[lightest]) {
          lightest = i;
        }
      }
      shards.get(lightest).add(group);
      loads[lightest] += group.cost();
    }
    return new ShardAssignment(
        shards.stream().map(Collections::unmodifiableList).toList(), loads.clone());
  }

  /**
   * The work groups of {@code plan}: work items joined when they run the same model on the same
   * task, or when they write or read the same artifact (a candidate set); in plan order of their
   * first work item.
   */
  public static List<WorkGroup> groups(List<Work> plan, WorkCost cost) {
    int[] parent = new int[plan.size()];
    for (int i = 0; i < parent.length; i++) {
      parent[i] = i;
    }
    Map<String, Integer> firstByKey = new HashMap<>();
    for (int i = 0; i < plan.size(); i++) {
      Work work = plan.get(i);
      for (String key : joinKeys(work)) {
        Integer first = firstByKey.putIfAbsent(key, i);
        if (first != null) {
          union(parent, first, i);
        }
      }
    }
    Map<Integer, List<Work>> members = new LinkedHashMap<>();
    for (int i = 0; i < plan.size(); i++) {
      members.computeIfAbsent(find(parent, i), r -> new ArrayList<>()).add(plan.get(i));
    }
    List<WorkGroup> groups = new ArrayList<>();
    for (List<Work> works : members.values()) {
      double total = 0;
      String id = null;
      for (Work work : works) {
        total += cost.of(work);
        for (String fingerprint : fingerprints(work)) {
          id = id == null || fingerprint.compareTo(id) < 0 ? fingerprint : id;
        }
      }
      groups.add(new WorkGroup(id == null ? "" : id, List.copyOf(works), total));
    }
    return groups;
  }

  /**
   * What joins a work item to others: its task and model (not BM25's empty model, nor a reranker's,
   * which is not an encoder of the task's documents), every artifact it writes or reads, and the
   * fingerprints of its cells (which a hybrid reads as artifacts).
   */
  private static List<String> joinKeys(Work work) {
    List<String> keys = new ArrayList<>();
    String task = work.task().benchmark() + "\u0000" + work.task().task();
    if (!work.model().isEmpty() && !work.kind().name().equals("rerank")) {
      keys.add("model\u0000" + task + "\u0000" + work.model());
    }
    for (String artifact : work.artifacts()) {
      keys.add("artifact\u0000" + artifact);
    }
    // A hybrid reads its components' cells (its artifacts): it runs in their shard, after them.
    for (PlannedCell cell : work.cells()) {
      keys.add("artifact\u0000" + cell.fingerprint());
    }
    return keys;
  }

  private static List<String> fingerprints(Work work) {
    List<String> out = new ArrayList<>(work.artifacts());
    for (PlannedCell cell : work.cells()) {
      out.add(cell.fingerprint());
    }
    return out;
  }

  private static int find(int[] parent, int i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  private static void union(int[] parent, int a, int b) {
    int ra = find(parent, a);
    int rb = find(parent, b);
    if (ra != rb) {
      parent[Math.max(ra, rb)] = Math.min(ra, rb);
    }
  }

  /** How many shards. */
  public int count() {
    return shards.size();
  }

  /** The groups of shard {@code index}, in placement order. */
  public List<WorkGroup> groups(int index) {
    return shards.get(index);
  }

  /** The work items of {@code shard}, in the order of {@code plan} (the order a full run uses). */
  public List<Work> works(Shard shard, List<Work> plan) {
    check(shard);
    Map<Work, Boolean> mine = new IdentityHashMap<>();
    for (WorkGroup group : shards.get(shard.index())) {
      group.works().forEach(w -> mine.put(w, true));
    }
    return plan.stream().filter(mine::containsKey).toList();
  }

  /** The estimated cost placed on shard {@code index}. */
  public double load(int index) {
    return loads[index];
  }

  /** Cells of shard {@code index}. */
  public int cells(int index) {
    return shards.get(index).stream().mapToInt(WorkGroup::cells).sum();
  }

  private void check(Shard shard) {
    if (shard.count() != count()) {
      throw new IllegalArgumentException(
          "shard " + shard.label() + " of an assignment into " + count() + " shards");
    }
  }
}
