package dev.tenbin.eval.aggregate;

import java.util.SplittableRandom;

/**
 * The one draw of every bootstrap in Tenbin (over tasks, {@link TaskBootstrap}; over queries,
 * {@link QueryBootstrap}): indices drawn uniformly with replacement from a {@link
 * SplittableRandom}, so a seed fixes every sample.
 */
final class Resampling {
  private Resampling() {}

  /** {@code count} indices in [0, size), each drawn uniformly and independently. */
  static int[] indices(SplittableRandom random, int size, int count) {
    int[] drawn = new int[count];
    for (int i = 0; i < count; i++) {
      drawn[i] = random.nextInt(size);
    }
    return drawn;
  }
}
