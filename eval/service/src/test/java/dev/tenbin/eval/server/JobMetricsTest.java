package dev.tenbin.eval.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobRequest;
import dev.tenbin.eval.job.ServiceFolders;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The eval service counts its jobs by state on /metrics (tenbin_eval_jobs{state}), and serves every
 * name the chart's alerts and dashboard ask of it (k8s/tests/src/test/resources/
 * chart-metric-names.txt: the unprefixed names, which every server shares, and those marked
 * "eval:").
 */
class JobMetricsTest {
  private static final String SPEC = "name: j\ntask_sets: [t.yaml]\nretrievers: [bm25]\n";
  private static final String TASKS =
      "name: b\ntasks:\n  - {name: t, language: en, source: {hub: owner/data, revision: main}}\n";

  @TempDir Path tmp;

  @Test
  void aJobThatFailsIsCountedUnderFailedAndNowhereElse() throws Exception {
    ServiceFolders folders =
        new ServiceFolders(tmp.resolve("state"), tmp.resolve("results"), List.of());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (JobManager jobs =
        JobManager.open(
            folders,
            (job, listener, cancellation) -> {
              throw new IllegalStateException("the index is gone");
            })) {
      JobMetrics.bind(jobs, registry);
      assertThat(count(registry, "failed")).isZero();
      String id =
          jobs.submit(
                  new JobRequest(
                      SPEC, List.of(new JobRequest.TaskSetDocument("t.yaml", TASKS, "")), "out"))
              .id();
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (jobs.get(id).state() != JobManager.State.FAILED) {
        assertThat(System.nanoTime()).as("waited for the job to fail").isLessThan(until);
        Thread.sleep(20);
      }
      assertThat(count(registry, "failed")).isEqualTo(1);
      for (String other : List.of("queued", "running", "succeeded", "cancelled")) {
        assertThat(count(registry, other)).as(other).isZero();
      }
    }
  }

  @Test
  void theServiceServesItsJobCountsAndTheChartsNamesOnMetrics() throws Exception {
    EvalServer server = new EvalServer();
    new CommandLine(server)
        .parseArgs(
            "--port", "0", "--metrics-port", "0", "--state-dir", tmp.resolve("state").toString());
    try (EvalServer.Running running = EvalServer.start(server.config())) {
      String scrape =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:" + running.host().metricsPort() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      List<String> series = scrape.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
      assertThat(series)
          .anyMatch(l -> l.startsWith("tenbin_eval_jobs{") && l.contains("state=\"failed\""));
      for (String name : chartMetricNames()) {
        assertThat(series)
            .as(name)
            .anyMatch(l -> l.startsWith(name + "{") || l.startsWith(name + " "));
      }
    }
  }

  private static double count(SimpleMeterRegistry registry, String state) {
    return registry.get(JobMetrics.NAME).tag("state", state).gauge().value();
  }

  /** The chart's names this server must serve: unprefixed (every server) and "eval: NAME". */
  private static List<String> chartMetricNames() throws Exception {
    Path list =
        Path.of("..", "..", "k8s", "tests", "src", "test", "resources", "chart-metric-names.txt");
    return Files.readAllLines(list).stream()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .filter(l -> !l.contains(":") || l.startsWith("eval:"))
        .map(l -> l.replaceFirst("^eval:", "").strip())
        .toList();
  }
}
