package dev.tenbin.drill;

import java.time.Duration;

/**
 * What a soak runs: how long the load lasts, how often a service is killed and the processes are
 * sampled, how long a process warms up before its samples count towards a slope, and the load.
 *
 * @param duration the loaded period, from the end of the capacity probe
 * @param killEvery time between two kills (the first one this long after the load starts)
 * @param sampleEvery time between two samples of every process
 * @param warmUp the first part of each process's life under load left out of the slopes
 * @param loadFactor offered load over the measured capacity
 * @param model the dense model of the jobs and the encode calls
 * @param documents synthetic documents of the jobs' dataset and of the searched collection
 * @param heap every service's {@code -Xmx}
 * @param seed seed of the data, the encode and search inputs and the choice of services to kill
 * @param sigterm whether every other fault is a SIGTERM (a graceful stop, as a rolling update
 *     sends) instead of a SIGKILL
 */
public record SoakSettings(
    Duration duration,
    Duration killEvery,
    Duration sampleEvery,
    Duration warmUp,
    double loadFactor,
    String model,
    int documents,
    String heap,
    long seed,
    boolean sigterm) {
  /** A soak whose every fault is a SIGKILL. */
  public SoakSettings(
      Duration duration,
      Duration killEvery,
      Duration sampleEvery,
      Duration warmUp,
      double loadFactor,
      String model,
      int documents,
      String heap,
      long seed) {
    this(duration, killEvery, sampleEvery, warmUp, loadFactor, model, documents, heap, seed, false);
  }

  public SoakSettings {
    if (duration.toSeconds() < 10) {
      throw new IllegalArgumentException("--duration must be at least 10s, got " + duration);
    }
    if (killEvery.toSeconds() < 5) {
      throw new IllegalArgumentException("--kill-every must be at least 5s, got " + killEvery);
    }
    if (sampleEvery.toMillis() < 500) {
      throw new IllegalArgumentException(
          "--sample-every must be at least 500ms, got " + sampleEvery);
    }
    if (warmUp.isNegative() || warmUp.compareTo(duration) >= 0) {
      throw new IllegalArgumentException(
          "--warm-up must be at least 0 and shorter than --duration, got " + warmUp);
    }
    if (!(loadFactor > 0) || loadFactor > 16) {
      throw new IllegalArgumentException(
          "--load-factor must be above 0 and at most 16, got " + loadFactor);
    }
    if (documents < 10) {
      throw new IllegalArgumentException("--documents must be at least 10, got " + documents);
    }
    if (!heap.matches("\\d+[kKmMgG]?")) {
      throw new IllegalArgumentException("--heap must be a size such as 1g or 768m, got " + heap);
    }
  }

  /** The clients per request kind, and the jobs kept queued or running: the factor rounded up. */
  int concurrency() {
    return (int) Math.ceil(loadFactor);
  }

  /**
   * Kills in the loaded period: one at every whole multiple of {@link #killEvery} before its end.
   */
  int plannedKills() {
    return (int) ((duration.toMillis() - 1) / killEvery.toMillis());
  }
}
