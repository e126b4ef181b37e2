package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Defect 1: with tls.enabled the kubelet's gRPC probe cannot complete a TLS handshake, so pods were
 * never ready. Every server now answers plaintext GET /livez and /readyz on its metrics port, and
 * the chart probes those for every TLS / mutual TLS / token combination; Services declare h2c only
 * when the services speak plaintext.
 */
class ProbesAndTlsTest {
  @ParameterizedTest
  @ValueSource(strings = {"default", "tls", "mtls-token"})
  void probesAreHttpGetOnThePlaintextMetricsPortWhateverTlsAndTokensSay(String variant) {
    List<V1PodSpec> specs = Charts.serverPodSpecs(Charts.renderCi(variant, ""));
    assertThat(specs).hasSize(4);
    for (V1PodSpec spec : specs) {
      V1Container server = spec.getContainers().getFirst();
      assertThat(server.getPorts())
          .as(server.getName() + " always serves the metrics port")
          .anySatisfy(
              p -> {
                assertThat(p.getName()).isEqualTo("metrics");
                assertThat(p.getContainerPort()).isEqualTo(9464);
              });
      assertThat(server.getEnv())
          .anySatisfy(
              e -> {
                assertThat(e.getName()).isEqualTo("TENBIN_METRICS_PORT");
                assertThat(e.getValue()).isEqualTo("9464");
              });
      assertHttpGet(server.getStartupProbe(), "/livez");
      assertHttpGet(server.getLivenessProbe(), "/livez");
      assertHttpGet(server.getReadinessProbe(), "/readyz");
    }
  }

  private static void assertHttpGet(V1Probe probe, String path) {
    assertThat(probe.getGrpc()).as("a gRPC probe cannot speak TLS").isNull();
    assertThat(probe.getTcpSocket()).isNull();
    assertThat(probe.getExec()).isNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    assertThat(probe.getHttpGet().getPort().getStrValue()).isEqualTo("metrics");
    assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTP");
  }

  @ParameterizedTest
  @ValueSource(strings = {"default", "tls", "mtls-token"})
  void grpcServicePortsDeclareH2cOnlyWhenTheServicesSpeakPlaintext(String variant) {
    boolean tls = !variant.equals("default");
    List<Manifest> services =
        Charts.renderCi(variant, "").stream().filter(m -> m.model() instanceof V1Service).toList();
    assertThat(services).hasSize(7);
    for (Manifest m : services) {
      for (V1ServicePort port : m.as(V1Service.class).getSpec().getPorts()) {
        switch (port.getName()) {
          case "grpc" ->
              assertThat(port.getAppProtocol())
                  .as(m.name() + " grpc")
                  .isEqualTo(tls ? null : "kubernetes.io/h2c");
          case "metrics" -> assertThat(port.getAppProtocol()).isEqualTo("http");
          // The eval web UI: HTTPS under the release's TLS.
          case "http" ->
              assertThat(port.getAppProtocol())
                  .as(m.name() + " http")
                  .isEqualTo(tls ? "https" : "http");
          default -> throw new AssertionError("unexpected port " + port.getName());
        }
      }
    }
  }

  @Test
  void mutualTlsAndTokensChangeTheEnvironmentButNotTheProbes() {
    V1Container encoder = Charts.server(Charts.renderCi("mtls-token", ""), "encoder");
    assertThat(encoder.getEnv())
        .extracting(e -> e.getName())
        .contains(
            "TENBIN_TLS_CERT",
            "TENBIN_TLS_KEY",
            "TENBIN_TLS_CLIENT_CA",
            "TENBIN_SERVICE_TLS_CLIENT_CERT",
            "TENBIN_AUTH_TOKEN_FILE",
            "TENBIN_SERVICE_TOKEN_FILE")
        .doesNotContain("TENBIN_ALLOW_PLAINTEXT");
    assertThat(encoder.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
  }

  @Test
  void theMetricsPortCannotBeTurnedOffNorShareAServicePort() {
    assertThat(Charts.failure("metricsPort: 0")).contains("metricsPort");
    assertThat(Charts.failure("metricsPort: -1")).contains("metricsPort");
    assertThat(Charts.failure("encoder: {port: 9464}"))
        .contains("encoder.port (9464) must differ from metricsPort");
  }
}
