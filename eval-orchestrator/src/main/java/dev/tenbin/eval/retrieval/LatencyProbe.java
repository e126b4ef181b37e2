package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.result.Latency;
import dev.tenbin.scoring.stats.Interval;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Single-query latency, as a user of the services sees it: the median and the 99th percentile over
 * the first {@link #QUERIES} evaluated queries, each sent alone (one encode request, one search
 * request), one after the other, after the batch run has warmed the model and the index. Batch
 * timings amortise over a whole query set and hit the embedding cache on reruns; these do neither,
 * so cells computed at different times stay comparable. With fewer queries the percentiles are of
 * those there are (the 99th of 20 is close to their maximum).
 */
public final class LatencyProbe {
  /** Queries timed per cell. */
  public static final int QUERIES = 100;

  private LatencyProbe() {}

  /** The median and 99th percentile of {@code call} over the first {@link #QUERIES} items. */
  public static <T> Latency micros(List<T> items, Consumer<T> call) {
    int n = Math.min(QUERIES, items.size());
    if (n == 0) {
      return new Latency(0, 0);
    }
    double[] micros = new double[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      call.accept(items.get(i));
      micros[i] = (System.nanoTime() - start) / 1e3;
    }
    Arrays.sort(micros);
    return new Latency(Interval.quantile(micros, 0.5), Interval.quantile(micros, 0.99));
  }
}
