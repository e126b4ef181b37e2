package dev.tenbin.eval.retrieval;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Single-query latency, as a user of the services sees it: the median over the first {@link
 * #QUERIES} evaluated queries, each sent alone (one encode request, one search request), after the
 * batch run has warmed the model and the index. Batch timings amortise over a whole query set and
 * hit the embedding cache on reruns; these do neither, so cells computed at different times stay
 * comparable.
 */
public final class LatencyProbe {
  /** Queries timed per cell. */
  public static final int QUERIES = 20;

  private LatencyProbe() {}

  /** The median microseconds of {@code call} over the first {@link #QUERIES} items. */
  public static <T> double medianMicros(List<T> items, Consumer<T> call) {
    int n = Math.min(QUERIES, items.size());
    if (n == 0) {
      return 0;
    }
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      call.accept(items.get(i));
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    double median = n % 2 == 1 ? nanos[n / 2] : (nanos[n / 2 - 1] + nanos[n / 2]) / 2.0;
    return median / 1e3;
  }
}
