package dev.tenbin.drill;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * One look at a service process: resident memory and threads from {@code /proc/PID/status}, open
 * file descriptors from {@code /proc/PID/fd}, and two heap figures from the service's {@code
 * /metrics}: heap after GC ({@code jvm_gc_live_data_size_bytes}: the old generation's occupancy
 * after the latest major collection, or after a collection that shrank it; Micrometer reports 0
 * until one happened, kept here as -1) and heap in use (the sum of {@code
 * jvm_memory_used_bytes{area="heap"}}, young generation included).
 *
 * @param service the service
 * @param generation its process: 1 for the first, 2 after the first restart, ...
 * @param pid the process id
 * @param atMillis when, in milliseconds since the load began
 * @param rssBytes {@code VmRSS}; -1 when unreadable
 * @param threads {@code Threads}; -1 when unreadable
 * @param openFiles entries of {@code /proc/PID/fd}; -1 when unreadable
 * @param heapAfterGcBytes heap after GC; -1 before the first major collection or without metrics
 * @param heapUsedBytes heap in use; -1 without metrics
 */
record ProcessSample(
    TenbinService service,
    int generation,
    long pid,
    long atMillis,
    long rssBytes,
    int threads,
    int openFiles,
    long heapAfterGcBytes,
    long heapUsedBytes) {
  static final String CSV_HEADER =
      "at_s,service,generation,pid,rss_bytes,threads,open_files,heap_after_gc_bytes,heap_used_bytes";

  private static final Duration SCRAPE_TIMEOUT = Duration.ofSeconds(5);

  /** Samples the process {@code pid}, reading metrics from {@code metricsPort} on loopback. */
  static ProcessSample take(
      TenbinService service,
      int generation,
      long pid,
      long atMillis,
      int metricsPort,
      HttpClient http) {
    long rssKb = -1;
    int threads = -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          rssKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
        } else if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException | RuntimeException ended) {
      // The process ended between the check and the read.
    }
    int openFiles = -1;
    try (Stream<Path> descriptors = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      openFiles = (int) descriptors.count();
    } catch (IOException | RuntimeException ended) {
      // As above.
    }
    long heapAfterGc = -1;
    long heapUsed = -1;
    String metrics = scrape(metricsPort, http);
    if (!metrics.isEmpty()) {
      double live = PrometheusText.sum(metrics, "jvm_gc_live_data_size_bytes", "");
      heapAfterGc = live > 0 ? (long) live : -1;
      double used = PrometheusText.sum(metrics, "jvm_memory_used_bytes", "area=\"heap\"");
      heapUsed = used > 0 ? (long) used : -1;
    }
    return new ProcessSample(
        service,
        generation,
        pid,
        atMillis,
        rssKb < 0 ? -1 : rssKb * 1024,
        threads,
        openFiles,
        heapAfterGc,
        heapUsed);
  }

  /** The {@code /metrics} text; empty when the service does not answer in time. */
  private static String scrape(int port, HttpClient http) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                  .timeout(SCRAPE_TIMEOUT)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** Whether /proc answered for the process (it was alive when sampled). */
  boolean seen() {
    return rssBytes >= 0 && threads >= 0 && openFiles >= 0;
  }

  String csvLine() {
    return String.format(
        java.util.Locale.ROOT,
        "%.3f,%s,%d,%d,%d,%d,%d,%s,%s",
        atMillis / 1000.0,
        service.label(),
        generation,
        pid,
        rssBytes,
        threads,
        openFiles,
        heapAfterGcBytes < 0 ? "" : Long.toString(heapAfterGcBytes),
        heapUsedBytes < 0 ? "" : Long.toString(heapUsedBytes));
  }
}
