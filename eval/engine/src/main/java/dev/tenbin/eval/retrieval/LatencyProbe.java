package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.result.Latency;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * Query latency, as a user of the services sees it, over the first {@link #QUERIES} evaluated
 * queries, after the batch run has warmed the model and the index. Batch timings amortise over a
 * whole query set and hit the embedding cache on reruns; these do neither, so cells computed at
 * different times stay comparable. With fewer queries the percentiles are of those there are (the
 * 99th of 20 is close to their maximum).
 *
 * <ul>
 *   <li>{@link #micros}: single-query latency, the median and the 99th percentile of each query
 *       sent alone (one encode request, one search request), one after the other;
 *   <li>{@link #concurrent}: the same queries with several in flight ({@link #CONCURRENCY} unless a
 *       job or {@code tenbin eval} states another number): that many threads each take the next
 *       query and run its whole path (encode, then search); each query is timed from its start to
 *       its answer, and the queries per second are the queries over the wall time of the whole
 *       measurement.
 * </ul>
 */
public final class LatencyProbe {
  /** Queries timed per cell. */
  public static final int QUERIES = 100;

  /**
   * Queries in flight in the concurrent measurement unless stated otherwise: the same on every
   * machine, so that cells measured anywhere are comparable.
   */
  public static final int CONCURRENCY = 4;

  /** The most queries in flight a job or {@code tenbin eval} may state. */
  public static final int MAX_CONCURRENCY = 256;

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

  /**
   * The first {@link #QUERIES} items through {@code call} with {@code concurrency} calls in flight
   * (fewer when there are fewer items): the median and 99th percentile of each call's time from its
   * start to its return, and the calls per second over the wall time from the first start to the
   * last return. No items: zeros, with none in flight. A call that throws ends the measurement (the
   * calls running finish, no other starts) and its exception is thrown here.
   *
   * @param concurrency the calls in flight together, at least 1
   */
  public static <T> ConcurrentLatency concurrent(List<T> items, int concurrency, Consumer<T> call) {
    return concurrent(items.size(), concurrency, i -> call.accept(items.get(i)));
  }

  /**
   * {@link #concurrent(List, int, Consumer)} over the positions {@code 0 .. count - 1} (the first
   * {@link #QUERIES} of them): for a query that is its id, text and vector at one position of
   * several lists.
   */
  public static ConcurrentLatency concurrent(int count, int concurrency, IntConsumer call) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, got " + concurrency);
    }
    int n = Math.min(QUERIES, count);
    if (n == 0) {
      return new ConcurrentLatency(0, 0, 0, 0);
    }
    int inFlight = Math.min(concurrency, n);
    double[] micros = new double[n];
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch go = new CountDownLatch(1);
    Runnable worker =
        () -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            failure.compareAndSet(null, e);
            return;
          }
          int i;
          while (failure.get() == null && (i = next.getAndIncrement()) < n) {
            long start = System.nanoTime();
            try {
              call.accept(i);
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
              return;
            }
            micros[i] = (System.nanoTime() - start) / 1e3;
          }
        };
    List<Thread> threads = new ArrayList<>(inFlight);
    Thread.Builder builder = Thread.ofPlatform().name("tenbin-latency-probe-", 0).daemon(true);
    // The calls run in the caller's gRPC context, so a cancelled work item cancels them too.
    Runnable inContext = io.grpc.Context.current().wrap(worker);
    for (int t = 0; t < inFlight; t++) {
      threads.add(builder.start(inContext));
    }
    long start = System.nanoTime();
    go.countDown();
    try {
      for (Thread thread : threads) {
        thread.join();
      }
    } catch (InterruptedException e) {
      failure.compareAndSet(null, e);
      threads.forEach(Thread::interrupt);
      Thread.currentThread().interrupt();
      throw new CancellationException("the concurrent latency probe was interrupted");
    }
    long wallNanos = System.nanoTime() - start;
    Throwable failed = failure.get();
    if (failed instanceof RuntimeException e) {
      throw e;
    }
    if (failed instanceof Error e) {
      throw e;
    }
    if (failed != null) {
      throw new IllegalStateException("a call of the concurrent latency probe failed", failed);
    }
    Arrays.sort(micros);
    return new ConcurrentLatency(
        inFlight,
        Interval.quantile(micros, 0.5),
        Interval.quantile(micros, 0.99),
        n / (Math.max(1, wallNanos) / 1e9));
  }
}
