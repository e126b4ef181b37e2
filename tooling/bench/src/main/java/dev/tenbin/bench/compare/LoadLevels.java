package dev.tenbin.bench.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Sides of a comparison (in-process, over gRPC to a service process, ...) run at a number of calls
 * in flight, each side's CPU read from the operating system ({@link CpuClock}) around its calls.
 * {@link #measure} runs two rounds, the sides alternating within each, so that all share the
 * machine's noise.
 */
public final class LoadLevels {
  private LoadLevels() {}

  /**
   * One side: {@code call} makes call number {@code i} (from any thread), and the CPU of {@code
   * clocks} is what the side is charged (the process that serves it, and the load generator).
   */
  public record Side(IntConsumer call, List<CpuClock> clocks) {
    public Side {
      clocks = List.copyOf(clocks);
    }
  }

  /**
   * What one side used at one level.
   *
   * @param calls the calls measured
   * @param wallNanos the wall time they took
   * @param cpuNanos the CPU each of the side's clocks counted meanwhile, in the side's order
   */
  public record Usage(long calls, long wallNanos, List<Long> cpuNanos) {
    public Usage {
      if (calls < 1) {
        throw new IllegalArgumentException("a usage needs at least one call, got " + calls);
      }
      cpuNanos = List.copyOf(cpuNanos);
    }

    /** The CPU of clock {@code clock} per call, in microseconds. */
    public double cpuMicrosPerCall(int clock) {
      return cpuNanos.get(clock) / 1e3 / calls;
    }

    /** Calls per wall second. */
    public double callsPerSecond() {
      return calls / (wallNanos / 1e9);
    }
  }

  /**
   * The levels to measure: {@code given} (an {@code --in-flight} list), or when null 1, the cores
   * and 4 × the cores, each once.
   *
   * @throws IllegalArgumentException when {@code given} is empty or holds a level below 1
   */
  public static List<Integer> levels(List<Integer> given, int cores) {
    if (given == null) {
      return List.of(1, cores, 4 * cores).stream().distinct().toList();
    }
    if (given.isEmpty() || given.stream().anyMatch(n -> n < 1)) {
      throw new IllegalArgumentException(
          "every --in-flight must be at least 1, got " + given.toString().replace(" ", ""));
    }
    return List.copyOf(given);
  }

  /** Runs {@code calls} calls of each side at {@code threads} in flight, measuring nothing. */
  public static void warmUp(int threads, int calls, List<Side> sides) {
    for (Side side : sides) {
      concurrently(threads, calls, side.call());
    }
  }

  /**
   * Each side's usage, in the order of {@code sides}, of {@code calls} calls (rounded down to an
   * even number, at least 2) at {@code threads} in flight: two rounds of half of them, the sides
   * taking turns in each.
   */
  public static List<Usage> measure(int threads, int calls, List<Side> sides) {
    int half = Math.max(1, calls / 2);
    long[] wall = new long[sides.size()];
    long[][] cpu = new long[sides.size()][];
    for (int s = 0; s < sides.size(); s++) {
      cpu[s] = new long[sides.get(s).clocks().size()];
    }
    for (int round = 0; round < 2; round++) {
      for (int s = 0; s < sides.size(); s++) {
        Side side = sides.get(s);
        long[] before = read(side.clocks());
        wall[s] += concurrently(threads, half, side.call());
        long[] after = read(side.clocks());
        for (int c = 0; c < before.length; c++) {
          cpu[s][c] += after[c] - before[c];
        }
      }
    }
    List<Usage> usages = new ArrayList<>();
    for (int s = 0; s < sides.size(); s++) {
      List<Long> perClock = new ArrayList<>();
      for (long nanos : cpu[s]) {
        perClock.add(nanos);
      }
      usages.add(new Usage(2L * half, wall[s], perClock));
    }
    return usages;
  }

  private static long[] read(List<CpuClock> clocks) {
    long[] now = new long[clocks.size()];
    for (int c = 0; c < now.length; c++) {
      now[c] = clocks.get(c).cpuNanos();
    }
    return now;
  }

  /**
   * Wall nanoseconds of {@code total} calls of {@code work} spread over {@code threads} threads;
   * the first call that fails stops the others and is thrown.
   */
  static long concurrently(int threads, int total, IntConsumer work) {
    AtomicInteger next = new AtomicInteger();
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<?>> running = new ArrayList<>();
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        running.add(
            pool.submit(
                () -> {
                  try {
                    for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                      work.accept(i);
                    }
                  } catch (RuntimeException | Error e) {
                    next.set(total); // the other threads stop at their next call
                    throw e;
                  }
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
      return System.nanoTime() - start;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException(e.getCause());
    }
  }
}
