package dev.tenbin.rpc;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What an operator needs beside the per-RPC counts: every timer (gRPC server latency per method and
 * status, and the services' own timers) as a histogram with buckets from 1 ms to 5 min, so
 * Prometheus can compute percentiles ({@code histogram_quantile}) across instances; and JVM and
 * process metrics (memory, GC, threads, class loading, CPU, uptime, open files, resident memory).
 */
final class OperatorMetrics implements AutoCloseable {
  private static final Path PROC_STATUS = Path.of("/proc/self/status");

  private final JvmGcMetrics gc = new JvmGcMetrics();

  private OperatorMetrics() {}

  /**
   * Configures histograms on {@code registry} (before any timer exists) and binds the JVM meters.
   */
  static OperatorMetrics bind(MeterRegistry registry) {
    registry.config().meterFilter(latencyHistograms());
    OperatorMetrics metrics = new OperatorMetrics();
    new JvmMemoryMetrics().bindTo(registry);
    metrics.gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new JvmInfoMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    if (Files.isReadable(PROC_STATUS)) {
      Gauge.builder("process.resident.memory", OperatorMetrics::residentBytes)
          .baseUnit("bytes")
          .description("Resident set size of the process (VmRSS)")
          .register(registry);
    }
    return metrics;
  }

  /** Timers publish a bucketed histogram (1 ms .. 5 min) besides count, sum and max. */
  static MeterFilter latencyHistograms() {
    return new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(
          Meter.Id id, DistributionStatisticConfig config) {
        if (id.getType() != Meter.Type.TIMER) {
          return config;
        }
        return DistributionStatisticConfig.builder()
            .percentilesHistogram(true)
            .minimumExpectedValue((double) Duration.ofMillis(1).toNanos())
            .maximumExpectedValue((double) Duration.ofMinutes(5).toNanos())
            .build()
            .merge(config);
      }
    };
  }

  private static double residentBytes() {
    try {
      for (String line : Files.readAllLines(PROC_STATUS)) {
        if (line.startsWith("VmRSS:")) {
          String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
          return Double.parseDouble(parts[0]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
    return Double.NaN;
  }

  @Override
  public void close() {
    gc.close();
  }
}
