package dev.tenbin.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's one ordered shutdown: a single JVM shutdown hook that closes what was registered,
 * stage by stage — servers first (stop taking calls, let in-flight ones finish), then job runners
 * (stop at their next check), then workers (model cores and their batchers: queued work refused,
 * running passes finished, threads joined), then native resources (ONNX Runtime sessions). JVM
 * shutdown hooks otherwise run all at once, in no order; this one runs on SIGTERM, {@code
 * System.exit} and the end of {@code main}.
 *
 * <p>Process-wide by nature (the JVM has one shutdown), hence static. A registration is dropped
 * when its owner closes normally, so closed cores are not kept alive. Once shutdown has begun, new
 * registrations are refused with {@link UnavailableException}: nothing native starts while the
 * process drains. The whole sequence is bounded ({@code -Dtenbin.shutdown.timeout.seconds}, default
 * 60) so a stuck step cannot keep the process alive.
 */
public final class OrderedShutdown {
  private static final Logger log = LoggerFactory.getLogger(OrderedShutdown.class);

  /** The stages, closed in declaration order. */
  public enum Stage {
    /** gRPC servers: refuse new calls, give in-flight ones their grace period. */
    SERVERS,
    /**
     * Job runners (the eval service): stop the running job at its next check, before the services
     * it calls go away, so a durable job stays running in its table and resumes at the next start.
     */
    JOBS,
    /** Model cores and batchers: refuse queued work, finish running passes, join threads. */
    WORKERS,
    /** Native resources (ONNX Runtime sessions), each waiting for the runs it has begun. */
    NATIVE,
    /** Temporary files and folders the process made for itself, once nothing uses them. */
    FILES
  }

  /** A registered step; closing it drops the step (its owner closed by itself). */
  @FunctionalInterface
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }

  private static final Object LOCK = new Object();
  private static final Map<Stage, Map<Object, Step>> STEPS = new EnumMap<>(Stage.class);
  private static boolean hookInstalled;
  private static boolean started;

  private record Step(String name, AutoCloseable action) {}

  private OrderedShutdown() {}

  /**
   * Registers {@code action} to be closed at JVM shutdown, in {@code stage}.
   *
   * @throws UnavailableException when the process is already shutting down
   */
  public static Registration register(Stage stage, String name, AutoCloseable action) {
    Object key = new Object();
    synchronized (LOCK) {
      if (started) {
        throw new UnavailableException("the process is shutting down");
      }
      if (!hookInstalled) {
        try {
          Runtime.getRuntime().addShutdownHook(new Thread(OrderedShutdown::run, "tenbin-shutdown"));
        } catch (IllegalStateException shutdownInProgress) {
          throw new UnavailableException("the process is shutting down");
        }
        hookInstalled = true;
      }
      STEPS.computeIfAbsent(stage, s -> new LinkedHashMap<>()).put(key, new Step(name, action));
    }
    return () -> {
      synchronized (LOCK) {
        Map<Object, Step> steps = STEPS.get(stage);
        if (steps != null) {
          steps.remove(key);
        }
      }
    };
  }

  /** Whether the JVM has begun shutting down through this sequence. */
  public static boolean isShuttingDown() {
    synchronized (LOCK) {
      return started;
    }
  }

  /** Steps registered now, per stage (tests). */
  static int registered(Stage stage) {
    synchronized (LOCK) {
      Map<Object, Step> steps = STEPS.get(stage);
      return steps == null ? 0 : steps.size();
    }
  }

  private static void run() {
    Map<Stage, List<Step>> plan = new EnumMap<>(Stage.class);
    synchronized (LOCK) {
      started = true;
      STEPS.forEach((stage, steps) -> plan.put(stage, new ArrayList<>(steps.values())));
    }
    Duration limit = Duration.ofSeconds(Long.getLong("tenbin.shutdown.timeout.seconds", 60));
    // The steps run on their own thread so that a stuck one cannot hold the JVM past the limit.
    Thread steps =
        Thread.ofPlatform()
            .name("tenbin-shutdown-steps")
            .daemon()
            .start(
                () -> {
                  for (Stage stage : Stage.values()) {
                    for (Step step : plan.getOrDefault(stage, List.of()).reversed()) {
                      long start = System.nanoTime();
                      try {
                        step.action().close();
                        log.debug(
                            "shutdown: closed {} in {} ms",
                            step.name(),
                            (System.nanoTime() - start) / 1_000_000);
                      } catch (Exception | LinkageError e) {
                        log.warn("shutdown: closing {} failed", step.name(), e);
                      }
                    }
                  }
                });
    try {
      if (!steps.join(limit)) {
        log.warn("shutdown: not finished after {}; exiting anyway", limit);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
