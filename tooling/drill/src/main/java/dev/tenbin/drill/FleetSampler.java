package dev.tenbin.drill;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples every process of a {@link ServiceFleet} at a fixed interval ({@link ProcessSample}) and
 * appends each sample to a CSV file as it is taken. A process that is not running when its turn
 * comes (killed, not yet restarted) is skipped. Also remembers when each process's load began: the
 * load's start for the first processes, their start for restarted ones.
 */
final class FleetSampler implements AutoCloseable {
  private final ServiceFleet fleet;
  private final long originNanos;
  private final BufferedWriter csv;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> Thread.ofPlatform().name("soak-sampler").daemon().unstarted(runnable));
  private final Map<TenbinService, List<ProcessSample>> samples =
      new EnumMap<>(TenbinService.class);
  private final Map<TenbinService, Map<Integer, Long>> generationStarts = new ConcurrentHashMap<>();

  /**
   * @param originNanos the load's start, in {@link System#nanoTime()}
   * @param csvFile where the samples go, one line each
   */
  FleetSampler(ServiceFleet fleet, long originNanos, Path csvFile) throws IOException {
    this.fleet = fleet;
    this.originNanos = originNanos;
    this.csv = Files.newBufferedWriter(csvFile, StandardCharsets.UTF_8);
    csv.write(ProcessSample.CSV_HEADER);
    csv.newLine();
    for (TenbinService service : TenbinService.values()) {
      samples.put(service, new ArrayList<>());
    }
  }

  /** Samples now, then every {@code interval}. */
  void start(Duration interval) {
    timer.scheduleAtFixedRate(this::sampleAll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** One sample of every running process. */
  synchronized void sampleAll() {
    long now = System.nanoTime();
    long atMillis = TimeUnit.NANOSECONDS.toMillis(now - originNanos);
    for (TenbinService service : TenbinService.values()) {
      ChildTenbin child = fleet.current(service);
      if (child == null || !child.isAlive()) {
        continue;
      }
      int generation = fleet.generation(service);
      long startMillis =
          Math.max(
              0, TimeUnit.NANOSECONDS.toMillis(fleet.generationStartNanos(service) - originNanos));
      generationStarts
          .computeIfAbsent(service, s -> new ConcurrentHashMap<>())
          .putIfAbsent(generation, startMillis);
      ProcessSample sample =
          ProcessSample.take(
              service, generation, child.pid(), atMillis, fleet.metricsPort(service), http);
      if (!sample.seen()) {
        continue; // it ended while being sampled
      }
      samples.get(service).add(sample);
      try {
        csv.write(sample.csvLine());
        csv.newLine();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the samples", e);
      }
    }
    try {
      csv.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the samples", e);
    }
  }

  /** The samples of {@code service} so far, in time order. */
  synchronized List<ProcessSample> samples(TenbinService service) {
    return List.copyOf(samples.get(service));
  }

  /** When each sampled process of {@code service} came under load, by generation, in ms. */
  Map<Integer, Long> generationStarts(TenbinService service) {
    return Map.copyOf(generationStarts.getOrDefault(service, Map.of()));
  }

  /** Stops the timer (a sample being taken is finished first) and closes the CSV file. */
  @Override
  public void close() throws IOException, InterruptedException {
    timer.shutdown();
    timer.awaitTermination(30, TimeUnit.SECONDS);
    synchronized (this) {
      csv.close();
    }
  }
}
