package dev.tenbin.scoring.stats;

import java.util.SplittableRandom;

/**
 * The one draw of every bootstrap in Tenbin (over a leaderboard's tasks and over a task's queries):
 * indices drawn uniformly with replacement from a {@link SplittableRandom}, so a seed fixes every
 * sample.
 */
public final class Resampling {
  private Resampling() {}

  /** {@code count} indices in [0, size), each drawn uniformly and independently. */
  public static int[] indices(SplittableRandom random, int size, int count) {
    int[] drawn = new int[count];
    for (int i = 0; i < count; i++) {
      drawn[i] = random.nextInt(size);
    }
    return drawn;
  }
}
