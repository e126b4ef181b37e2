package dev.tenbin.drill;

import dev.tenbin.testing.rpc.LoopbackPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The four services as separate {@code tenbin serve} processes on loopback: index, encoder, rerank
 * (calling the encoder) and eval (calling the other three), each with a gRPC port, a {@code
 * /metrics} port and its data under the work folder. A service can be killed with SIGKILL and
 * started again on the same ports and data; each start is a generation with a log of its own
 * ({@code encoder-1.log}, {@code encoder-2.log}, ...).
 */
final class ServiceFleet implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);

  /** How long a service stopped with SIGTERM may take to exit: its drain grace and then some. */
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(90);

  private final Path work;
  private final List<String> jvmFlags;
  private final Map<TenbinService, Integer> ports = new EnumMap<>(TenbinService.class);
  private final Map<TenbinService, Integer> metricsPorts = new EnumMap<>(TenbinService.class);
  private final Map<TenbinService, List<String>> args = new EnumMap<>(TenbinService.class);
  private final Map<TenbinService, ChildTenbin> current = new ConcurrentHashMap<>();
  private final Map<TenbinService, Integer> generations = new ConcurrentHashMap<>();
  private final Map<TenbinService, Long> generationStarts = new ConcurrentHashMap<>();
  private final List<ChildTenbin> started = new CopyOnWriteArrayList<>();
  private final Set<ChildTenbin> killed = ConcurrentHashMap.newKeySet();
  private final Set<ChildTenbin> stopped = ConcurrentHashMap.newKeySet();

  private ServiceFleet(Path work, Path dataRoot, List<String> jvmFlags) {
    this.work = work;
    this.jvmFlags = List.copyOf(jvmFlags);
    for (TenbinService service : TenbinService.values()) {
      ports.put(service, LoopbackPorts.reserve());
      metricsPorts.put(service, LoopbackPorts.reserve());
    }
    args.put(
        TenbinService.INDEX,
        serve(TenbinService.INDEX, "--data-dir", work.resolve("index").toString()));
    args.put(
        TenbinService.ENCODER,
        serve(
            TenbinService.ENCODER,
            "--cache-dir",
            work.resolve("encoder-cache").toString(),
            "--models-dir",
            work.resolve("models").toString()));
    args.put(
        TenbinService.RERANK,
        serve(
            TenbinService.RERANK,
            "--encoder-endpoint",
            endpoint(TenbinService.ENCODER),
            "--cache-dir",
            work.resolve("rerank-cache").toString(),
            "--models-dir",
            work.resolve("models").toString()));
    args.put(
        TenbinService.EVAL,
        serve(
            TenbinService.EVAL,
            "--index-endpoint",
            endpoint(TenbinService.INDEX),
            "--encoder-endpoint",
            endpoint(TenbinService.ENCODER),
            "--rerank-endpoint",
            endpoint(TenbinService.RERANK),
            "--state-dir",
            work.resolve("state").toString(),
            "--results-root",
            work.resolve("results").toString(),
            "--data-root",
            dataRoot.toString(),
            "--cache-dir",
            work.resolve("eval-cache").toString(),
            "--models-dir",
            work.resolve("models").toString()));
  }

  /**
   * Starts the four services in order, each listening before the next starts; the eval service
   * reads datasets under {@code dataRoot}; {@code jvmFlags} go to every child (e.g. {@code
   * -Xmx1g}).
   */
  static ServiceFleet start(Path work, Path dataRoot, List<String> jvmFlags)
      throws InterruptedException {
    ServiceFleet fleet = new ServiceFleet(work, dataRoot, jvmFlags);
    try {
      for (TenbinService service : TenbinService.values()) {
        fleet.startGeneration(service);
      }
      return fleet;
    } catch (InterruptedException | RuntimeException e) {
      fleet.close();
      throw e;
    }
  }

  private List<String> serve(TenbinService service, String... options) {
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            "serve",
            service.label(),
            "--port",
            Integer.toString(ports.get(service)),
            "--metrics-port",
            Integer.toString(metricsPorts.get(service))));
    command.addAll(List.of(options));
    return List.copyOf(command);
  }

  private String endpoint(TenbinService service) {
    return "127.0.0.1:" + ports.get(service);
  }

  int port(TenbinService service) {
    return ports.get(service);
  }

  int metricsPort(TenbinService service) {
    return metricsPorts.get(service);
  }

  /** The service's latest process (a killed one until its restart has begun). */
  ChildTenbin current(TenbinService service) {
    return current.get(service);
  }

  /** 1 for the first process of the service, 2 after its first restart, ... */
  int generation(TenbinService service) {
    return generations.get(service);
  }

  /** When the service's latest process was started, in {@link System#nanoTime()}. */
  long generationStartNanos(TenbinService service) {
    return generationStarts.get(service);
  }

  /** SIGKILL of the service's process, and its exit awaited; returns the killed process. */
  ChildTenbin kill(TenbinService service) throws InterruptedException {
    ChildTenbin victim = current.get(service);
    killed.add(victim);
    victim.kill();
    victim.awaitExit(EXIT_TIMEOUT);
    return victim;
  }

  /**
   * SIGTERM of the service's process (a graceful stop, as a rolling update sends), and its exit
   * awaited (SIGKILL after {@link #STOP_TIMEOUT}); returns the stopped process.
   */
  ChildTenbin terminate(TenbinService service) throws InterruptedException {
    ChildTenbin victim = current.get(service);
    stopped.add(victim);
    victim.terminate();
    if (victim.awaitExit(STOP_TIMEOUT) == -1) {
      victim.kill();
      victim.awaitExit(EXIT_TIMEOUT);
    }
    return victim;
  }

  /** Starts the service again on the same ports and data; returns once it listens. */
  ChildTenbin restart(TenbinService service) throws InterruptedException {
    return startGeneration(service);
  }

  private ChildTenbin startGeneration(TenbinService service) throws InterruptedException {
    int generation = generations.merge(service, 1, Integer::sum);
    ChildTenbin child =
        ChildTenbin.start(work, service.label() + "-" + generation, jvmFlags, args.get(service));
    started.add(child);
    generationStarts.put(service, System.nanoTime());
    current.put(service, child);
    child.awaitListeningPort(START_TIMEOUT);
    return child;
  }

  /** The services whose current process has exited without being killed by this fleet. */
  List<TenbinService> exitedUnasked() {
    List<TenbinService> exited = new ArrayList<>();
    for (TenbinService service : TenbinService.values()) {
      ChildTenbin child = current.get(service);
      if (child != null
          && !child.isAlive()
          && !killed.contains(child)
          && !stopped.contains(child)) {
        exited.add(service);
      }
    }
    return exited;
  }

  /**
   * The processes, except those this fleet killed, that died of a native crash (see {@link
   * ChildTenbin#crashed()}); a process stopped with SIGTERM must exit cleanly, so it counts.
   */
  List<ChildTenbin> crashed() {
    return started.stream().filter(child -> !killed.contains(child) && child.crashed()).toList();
  }

  /** Stops every process still running, the last started first. */
  @Override
  public void close() {
    for (ChildTenbin child : List.copyOf(started).reversed()) {
      child.close();
    }
  }
}
