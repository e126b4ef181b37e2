package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Defect 3: the HPA scaled on tenbin_encoder_queued_inputs, a metric nothing exports. The encoder
 * exports the Micrometer gauge {@code tenbin.encoder.queue.inputs} (base unit "inputs", so
 * Prometheus keeps the name: tenbin_encoder_queue_inputs). Every Prometheus name the chart and the
 * kustomize overlays reference is listed in src/test/resources/chart-metric-names.txt, one per
 * line, so a service test can check each is exported.
 */
class MetricNamesTest {
  static List<String> listedNames() throws IOException {
    try (InputStream in = MetricNamesTest.class.getResourceAsStream("/chart-metric-names.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::strip)
          .filter(l -> !l.isEmpty())
          .toList();
    }
  }

  /** Micrometer's Prometheus name of a gauge whose name ends with its base unit. */
  static String prometheusName(String micrometerGauge) {
    return micrometerGauge.replace('.', '_').toLowerCase(Locale.ROOT);
  }

  @Test
  void theChartReferencesNoTenbinMetricOutsideTheList() throws IOException {
    Set<String> referenced = new TreeSet<>();
    for (String variant : ChartRenderingTest.VARIANTS) {
      referenced.addAll(
          Charts.tenbinMetricNames(
              Charts.template(
                  Charts.CHART,
                  Charts.RELEASE,
                  variant.equals("default") ? List.of() : List.of(variant),
                  "encoder:\n  autoscaling:\n    queueDepth:\n      enabled: true\n")));
    }
    try (Stream<Path> files = Files.walk(Charts.K8S.resolve("kustomize"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        referenced.addAll(Charts.tenbinMetricNames(Files.readString(f)));
      }
    }
    List<String> listed = listedNames();
    assertThat(listed).doesNotHaveDuplicates().isNotEmpty();
    assertThat(referenced).as("names the chart references").isSubsetOf(listed);
    assertThat(listed).as("listed names the chart no longer references").isSubsetOf(referenced);
  }

  @Test
  void theEncoderHpaScalesOnThePrometheusNameOfTheQueueGauge() {
    assertThat(prometheusName("tenbin.encoder.queue.inputs"))
        .isEqualTo("tenbin_encoder_queue_inputs");
    List<Manifest> cpu =
        Charts.render("encoder:\n  autoscaling:\n    queueDepth:\n      enabled: true\n");
    Manifest hpa = Charts.find(cpu, "HorizontalPodAutoscaler", "tb-tenbin-encoder");
    assertThat(hpa.tree().at("/spec/metrics/0/resource/name").asText()).isEqualTo("cpu");
    assertThat(hpa.tree().at("/spec/metrics/1/pods/metric/name").asText())
        .isEqualTo(prometheusName("tenbin.encoder.queue.inputs"));
    assertThat(
            Charts.find(Charts.render(""), "HorizontalPodAutoscaler", "tb-tenbin-encoder")
                .tree()
                .at("/spec/metrics")
                .size())
        .as("queue depth is off by default on CPU encoders (it needs a Prometheus adapter)")
        .isEqualTo(1);
  }
}
