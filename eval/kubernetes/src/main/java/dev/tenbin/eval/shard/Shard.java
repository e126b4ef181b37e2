package dev.tenbin.eval.shard;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.job.PlanSlice;
import dev.tenbin.eval.plan.Work;
import java.util.List;
import java.util.Locale;

/**
 * One shard of a job split {@code count} ways: {@code --shard I/K} with {@code 0 <= I < K}, zero
 * based like a Kubernetes Indexed Job's {@code JOB_COMPLETION_INDEX}.
 *
 * @param index which shard, from 0
 * @param count how many shards the job is split into
 */
public record Shard(int index, int count) implements PlanSlice {
  public Shard {
    if (count < 1 || index < 0 || index >= count) {
      throw new InvalidInputException(
          "--shard", "--shard must be I/K with 0 <= I < K, got " + index + "/" + count);
    }
  }

  /** Parses {@code I/K}, e.g. {@code 2/8}. */
  public static Shard parse(String text) {
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new InvalidInputException(
          "--shard", "--shard must be I/K (e.g. 0/4, zero-based), got '" + text + "'");
    }
    try {
      return new Shard(
          Integer.parseInt(text.substring(0, slash).trim()),
          Integer.parseInt(text.substring(slash + 1).trim()));
    } catch (NumberFormatException e) {
      throw new InvalidInputException(
          "--shard", "--shard must be I/K (e.g. 0/4, zero-based), got '" + text + "'");
    }
  }

  /** {@code I/K}. */
  public String label() {
    return index + "/" + count;
  }

  /** {@code shard-I-of-K}: the stem of the files a shard writes beside the cells. */
  public String fileStem() {
    return String.format(Locale.ROOT, "shard-%d-of-%d", index, count);
  }

  @Override
  public String name() {
    return fileStem();
  }

  /** This shard's work items under the {@link ShardAssignment} of {@code plan}. */
  @Override
  public List<Work> select(List<Work> plan) {
    return ShardAssignment.of(plan, count).works(this, plan);
  }
}
