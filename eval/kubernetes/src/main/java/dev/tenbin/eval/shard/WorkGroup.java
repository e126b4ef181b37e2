package dev.tenbin.eval.shard;

import dev.tenbin.eval.plan.Work;
import java.util.List;

/**
 * Work items that must run in one shard: they share an expensive step (one task's documents encoded
 * by one model) or one depends on another's artifact (rerankers read the candidate sets of their
 * task). See {@link ShardAssignment} for the policy.
 *
 * @param id the smallest cell or artifact fingerprint of its work items: content-addressed, so
 *     every process that plans the same job names the group alike
 * @param works the work items, in plan order
 * @param cost the estimated cost, the sum of {@link WorkCost} over its work items
 */
public record WorkGroup(String id, List<Work> works, double cost) {
  /** Cells the group produces. */
  public int cells() {
    return works.stream().mapToInt(w -> w.cells().size()).sum();
  }
}
