package dev.tenbin.encoder.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.testing.models.TinyModels;
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

/**
 * What a running encoder serves on /metrics: every name the chart scales or alerts on or its
 * Grafana dashboard shows (the admission and gRPC meters every server shares included), per-model
 * series only for models it has loaded (requests naming unknown ids create none), and a bounded
 * number of series per model (docs/services.md#metrics).
 */
class MetricsScrapeTest {
  /** Series of one loaded model: two gauges and a 13-bucket summary (+Inf, count, sum, max). */
  static final int SERIES_PER_MODEL = 2 + 13 + 4;

  @TempDir Path tmp;

  private static String scrape(int port) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static List<String> series(String scrape) {
    return scrape.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
  }

  /**
   * The Prometheus names k8s/tests keeps of what the chart and the kustomize overlays use that an
   * encoder serves: those every server shares (unprefixed) and those marked "encoder:".
   */
  private static List<String> chartMetricNames() throws Exception {
    Path list = Path.of("..", "k8s", "tests", "src", "test", "resources", "chart-metric-names.txt");
    return Files.readAllLines(list).stream()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
        .filter(l -> !l.contains(":") || l.startsWith("encoder:"))
        .map(l -> l.replaceFirst("^encoder:", "").strip())
        .toList();
  }

  @Test
  void unknownModelIdsCreateNoSeriesAndTheChartsNamesAreExported() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(models, tmp.resolve("cache"))
            .withServer(
                new ServerSettings(
                    "127.0.0.1",
                    0,
                    0,
                    ServerSettings.DEFAULT_MAX_MESSAGE_BYTES,
                    Duration.ofSeconds(2)));
    try (EncoderServer.Embedded server = EncoderServer.start(config)) {
      int port = server.host().metricsPort();
      int before = series(scrape(port)).size();
      assertThat(before).as("series budget of a started encoder").isLessThanOrEqualTo(1500);
      for (int i = 0; i < 20; i++) {
        String id = "no-such-model-" + i;
        assertThatThrownBy(
                () -> server.core().encodeDense(id, List.of("apple"), true, 0, () -> false))
            .hasMessageContaining(id);
      }
      String afterUnknown = scrape(port);
      assertThat(afterUnknown).doesNotContain("no-such-model");
      // (JVM meters such as GC pauses appear on their own time: only per-model series count here.)
      assertThat(series(afterUnknown)).noneMatch(l -> l.contains("model=\""));

      server.core().encodeDense("tiny-dense", List.of("apple", "banana"), true, 0, () -> false);
      String loaded = scrape(port);
      List<String> perModel =
          series(loaded).stream().filter(l -> l.contains("model=\"tiny-dense\"")).toList();
      assertThat(perModel).hasSizeLessThanOrEqualTo(SERIES_PER_MODEL);
      for (String name : chartMetricNames()) {
        assertThat(series(loaded))
            .as(name)
            .anyMatch(l -> l.startsWith(name + "{") || l.startsWith(name + " "));
      }
      System.out.printf(
          "encoder /metrics: %d series with no model loaded, %d with one (%d of them the model's)%n",
          before, series(loaded).size(), perModel.size());
    }
  }
}
