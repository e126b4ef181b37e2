package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.k8s.Manifests.Manifest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every metric the chart uses exists. Tenbin's own names (the HPA's queue gauge, the alerts of the
 * PrometheusRule, the Grafana dashboard's queries) are listed in
 * src/test/resources/chart-metric-names.txt, one per line, and the encoder's MetricsScrapeTest
 * checks each against the /metrics of a running encoder (every server shares the admission and gRPC
 * meters of GrpcServerHost); the few names other exporters provide are in {@link #EXTERNAL}. The
 * encoder exports the Micrometer gauge {@code tenbin.encoder.queue.inputs} (base unit "inputs", so
 * Prometheus keeps the name: tenbin_encoder_queue_inputs).
 */
class MetricNamesTest {
  /** Names the alerts and the dashboard read from other exporters, with the exporter. */
  static final Map<String, String> EXTERNAL =
      Map.of(
          "up", "Prometheus, one series per scrape target",
          "kube_job_status_condition", "kube-state-metrics",
          "kubelet_volume_stats_available_bytes", "the kubelet",
          "kubelet_volume_stats_capacity_bytes", "the kubelet");

  /** PromQL words the chart's queries use that are not metric names. */
  static final Set<String> PROMQL_WORDS =
      Set.of(
          "sum",
          "max",
          "delta",
          "state",
          "by",
          "rate",
          "ignoring",
          "group_left",
          "histogram_quantile",
          "label_values",
          "le",
          "namespace",
          "pod",
          "method",
          "statusCode",
          "model",
          "job_name");

  static final String MONITORING =
      "monitoring:\n  prometheusRule:\n    enabled: true\n  grafanaDashboard:\n    enabled: true\n";

  static List<String> listedNames() throws IOException {
    try (InputStream in = MetricNamesTest.class.getResourceAsStream("/chart-metric-names.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::strip)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .map(l -> l.replaceFirst("^(encoder|index|rerank|eval):", "").strip())
          .toList();
    }
  }

  /** Micrometer's Prometheus name of a gauge whose name ends with its base unit. */
  static String prometheusName(String micrometerGauge) {
    return micrometerGauge.replace('.', '_').toLowerCase(Locale.ROOT);
  }

  /**
   * The metric names of one PromQL expression: each name the queries use stands before a label
   * selector (or first in label_values); any other word must be a PromQL word, so a bare name
   * cannot slip past the check.
   */
  static Set<String> metricNames(String promql) {
    String noStrings = promql.replaceAll("\"[^\"]*\"", "\"\"");
    Set<String> names = new TreeSet<>();
    Matcher selector = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{").matcher(noStrings);
    while (selector.find()) {
      names.add(selector.group(1));
    }
    Matcher labelValues =
        Pattern.compile("label_values\\(([a-zA-Z_:][a-zA-Z0-9_:]*)").matcher(noStrings);
    while (labelValues.find()) {
      names.add(labelValues.group(1));
    }
    String rest = noStrings.replaceAll("\\{[^}]*\\}", " ").replaceAll("\\[[^]]*\\]", " ");
    Matcher word = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*").matcher(rest);
    while (word.find()) {
      assertThat(names.contains(word.group()) || PROMQL_WORDS.contains(word.group()))
          .as(
              "'"
                  + word.group()
                  + "' in "
                  + promql
                  + " is a metric before a selector or a PromQL word")
          .isTrue();
    }
    return names;
  }

  /** Every PromQL expression of the PrometheusRule and the dashboard, as rendered. */
  static List<String> monitoringQueries(List<Manifest> manifests) throws IOException {
    List<String> queries = new ArrayList<>();
    Manifest rule = Charts.find(manifests, "PrometheusRule", "tb-tenbin");
    rule.tree()
        .at("/spec/groups")
        .forEach(g -> g.path("rules").forEach(r -> queries.add(r.path("expr").asText())));
    JsonNode dashboard =
        new ObjectMapper()
            .readTree(
                Charts.find(manifests, "ConfigMap", "tb-tenbin-dashboard")
                    .tree()
                    .at("/data/tenbin.json")
                    .asText());
    dashboard
        .path("panels")
        .forEach(p -> p.path("targets").forEach(t -> queries.add(t.path("expr").asText())));
    dashboard.at("/templating/list").forEach(v -> queries.add(v.at("/query/query").asText("")));
    queries.removeIf(String::isBlank);
    return queries;
  }

  @Test
  void everyMetricTheAlertsAndTheDashboardQueryIsListedOrFromAKnownExporter() throws IOException {
    List<String> queries = monitoringQueries(Charts.render(MONITORING));
    assertThat(queries).hasSizeGreaterThanOrEqualTo(14);
    Set<String> used = new TreeSet<>();
    queries.forEach(q -> used.addAll(metricNames(q)));
    Set<String> ours = new TreeSet<>(used);
    ours.removeAll(EXTERNAL.keySet());
    assertThat(ours).as("names Tenbin must export").isSubsetOf(listedNames());
    assertThat(used)
        .contains(
            "tenbin_rpc_calls_active",
            "grpc_server_processing_duration_seconds_count",
            "kube_job_status_condition",
            "kubelet_volume_stats_available_bytes",
            "tenbin_eval_jobs");
  }

  @Test
  void theMetricNameCheckRefusesABareOrUnknownName() {
    assertThat(metricNames("sum by (pod) (rate(tenbin_x_total{pod=\"a{b}\"}[5m]))"))
        .containsExactly("tenbin_x_total");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> metricNames("sum(rate(tenbin_rpc_calls_refused_total[5m]))"))
        .hasMessageContaining("tenbin_rpc_calls_refused_total");
  }

  @Test
  void prometheusRuleAndDashboardAreOffByDefault() {
    assertThat(Charts.render(""))
        .noneMatch(m -> m.type().endsWith("PrometheusRule"))
        .noneMatch(m -> m.name().equals("tb-tenbin-dashboard"));
    List<Manifest> on = Charts.render(MONITORING);
    assertThat(Charts.find(on, "ConfigMap", "tb-tenbin-dashboard").tree().at("/metadata/labels"))
        .anySatisfy(l -> assertThat(l.asText()).isEqualTo("1"));
    Charts.find(on, "PrometheusRule", "tb-tenbin")
        .tree()
        .at("/spec/groups")
        .forEach(
            g ->
                g.path("rules")
                    .forEach(
                        r -> {
                          assertThat(r.at("/labels/severity").asText()).isIn("critical", "warning");
                          assertThat(r.at("/annotations/summary").asText()).isNotBlank();
                          assertThat(r.at("/annotations/description").asText()).isNotBlank();
                        }));
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
                  "encoder:\n  autoscaling:\n    queueDepth:\n      enabled: true\n"
                      + MONITORING)));
    }
    try (Stream<Path> files = Files.walk(Charts.K8S.resolve("kustomize"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        referenced.addAll(Charts.tenbinMetricNames(Files.readString(f)));
      }
    }
    for (String query : monitoringQueries(Charts.render(MONITORING))) {
      referenced.addAll(metricNames(query));
    }
    referenced.removeAll(EXTERNAL.keySet());
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
