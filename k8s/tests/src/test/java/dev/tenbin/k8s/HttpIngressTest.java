package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Ingress;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1NetworkPolicyIngressRule;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Defect 5: the encoder's OpenAI-style HTTP API (POST /v1/embeddings, `--http-port N`) had no
 * values. encoder.http renders the flag, a container port, a Service port and a NetworkPolicy rule;
 * encoder.http.ingress an Ingress that serves it over TLS only.
 */
class HttpIngressTest {
  @Test
  void theHttpApiIsOffByDefault() {
    List<Manifest> manifests = Charts.render("");
    V1Container encoder = Charts.server(manifests, "encoder");
    assertThat(encoder.getArgs()).doesNotContain("--http-port");
    assertThat(encoder.getPorts()).extracting(p -> p.getName()).containsExactly("grpc", "metrics");
    assertThat(manifests).noneMatch(m -> m.model() instanceof V1Ingress);
  }

  @Test
  void theHttpApiRendersTheFlagAContainerPortAServicePortAndANetworkPolicyRule() {
    List<Manifest> manifests =
        Charts.render("encoder:\n  http:\n    enabled: true\n    port: 8081\n");
    V1Container encoder = Charts.server(manifests, "encoder");
    assertThat(Charts.arg(encoder, "--http-port")).isEqualTo("8081");
    assertThat(encoder.getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("http");
              assertThat(p.getContainerPort()).isEqualTo(8081);
            });
    V1ServicePort port = servicePort(manifests, "http");
    assertThat(port.getPort()).isEqualTo(8081);
    assertThat(port.getTargetPort().getStrValue()).isEqualTo("http");
    assertThat(port.getAppProtocol()).isEqualTo("http");
    V1NetworkPolicyIngressRule rule = httpRule(manifests, 8081);
    assertThat(rule.getFrom())
        .anySatisfy(
            f ->
                assertThat(f.getPodSelector().getMatchLabels())
                    .containsEntry("tenbin.dev/encoder-client", "true"));
    assertThat(rule.getFrom()).noneMatch(f -> f.getNamespaceSelector() != null);
  }

  @Test
  void theIngressServesTheApiOverTlsToTheHttpServicePort() {
    List<Manifest> manifests = Charts.renderCi("http-ingress", "");
    V1Ingress ingress = Charts.find(manifests, "Ingress", "tb-tenbin-encoder").as(V1Ingress.class);
    assertThat(ingress.getSpec().getIngressClassName()).isEqualTo("nginx");
    assertThat(ingress.getMetadata().getAnnotations())
        .containsEntry("nginx.ingress.kubernetes.io/backend-protocol", "HTTPS");
    assertThat(ingress.getSpec().getTls())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getHosts()).containsExactly("embeddings.example.com");
              assertThat(t.getSecretName()).isEqualTo("embeddings-example-com-tls");
            });
    var rule = ingress.getSpec().getRules().getFirst();
    assertThat(rule.getHost()).isEqualTo("embeddings.example.com");
    assertThat(rule.getHttp().getPaths())
        .extracting(p -> p.getPath())
        .containsExactly("/v1/embeddings", "/v1/models");
    for (var path : rule.getHttp().getPaths()) {
      assertThat(path.getPathType()).isEqualTo("Exact");
      assertThat(path.getBackend().getService().getName()).isEqualTo("tb-tenbin-encoder");
      assertThat(path.getBackend().getService().getPort().getName()).isEqualTo("http");
    }
    assertThat(servicePort(manifests, "http").getAppProtocol())
        .as("with tls.enabled the API is HTTPS")
        .isEqualTo("https");
    assertThat(httpRule(manifests, 8080).getFrom())
        .as("the ingress controller's namespace reaches the HTTP port")
        .anySatisfy(
            f -> {
              assertThat(f.getNamespaceSelector()).isNotNull();
              assertThat(f.getNamespaceSelector().getMatchLabels())
                  .containsEntry("kubernetes.io/metadata.name", "ingress-nginx");
            });
    V1Container encoder = Charts.server(manifests, "encoder");
    assertThat(encoder.getEnv()).extracting(e -> e.getName()).contains("TENBIN_AUTH_TOKEN_FILE");
  }

  @Test
  void anIngressWithoutTlsOrHostOrTheHttpApiIsRefused() {
    assertThat(
            Charts.failure(
                "encoder:\n  http:\n    enabled: true\n    ingress:\n      enabled: true\n      host: h.example\n"))
        .contains("encoder.http.ingress.tlsSecret is required");
    assertThat(
            Charts.failure(
                "encoder:\n  http:\n    enabled: true\n    ingress:\n      enabled: true\n      tlsSecret: s\n"))
        .contains("encoder.http.ingress.host is required");
    assertThat(
            Charts.failure(
                "encoder:\n  http:\n    ingress:\n      enabled: true\n      host: h\n      tlsSecret: s\n"))
        .contains("encoder.http.ingress.enabled needs encoder.http.enabled");
    assertThat(Charts.failure("encoder:\n  http:\n    enabled: true\n    port: 50051\n"))
        .contains("encoder.http.port (50051) must differ");
  }

  @Test
  void theEvalWebUiIsOnByDefaultOnItsOwnPortWithTheReleasesTls() {
    List<Manifest> manifests = Charts.render("");
    V1Container eval = Charts.server(manifests, "eval");
    assertThat(Charts.arg(eval, "--http-port")).isEqualTo("8081");
    assertThat(eval.getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("http");
              assertThat(p.getContainerPort()).isEqualTo(8081);
            });
    V1ServicePort port = servicePort(manifests, "eval", "http");
    assertThat(port.getPort()).isEqualTo(8081);
    assertThat(port.getAppProtocol()).isEqualTo("http");
    assertThat(servicePort(Charts.renderCi("tls", ""), "eval", "http").getAppProtocol())
        .isEqualTo("https");

    List<Manifest> off = Charts.render("eval:\n  http:\n    enabled: false\n");
    assertThat(Charts.server(off, "eval").getArgs()).doesNotContain("--http-port");
    assertThat(Charts.server(off, "eval").getPorts())
        .extracting(p -> p.getName())
        .containsExactly("grpc", "metrics");
    assertThat(Charts.failure("eval:\n  http:\n    port: 50054\n"))
        .contains("eval.http.port (50054) must differ from eval.port and metricsPort");
  }

  private static V1ServicePort servicePort(List<Manifest> manifests, String name) {
    return servicePort(manifests, "encoder", name);
  }

  private static V1ServicePort servicePort(List<Manifest> manifests, String service, String name) {
    return Charts.find(manifests, "Service", "tb-tenbin-" + service)
        .as(V1Service.class)
        .getSpec()
        .getPorts()
        .stream()
        .filter(p -> p.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static V1NetworkPolicyIngressRule httpRule(List<Manifest> manifests, int port) {
    return Charts.find(manifests, "NetworkPolicy", "tb-tenbin-encoder")
        .as(V1NetworkPolicy.class)
        .getSpec()
        .getIngress()
        .stream()
        .filter(r -> r.getPorts().getFirst().getPort().getIntValue() == port)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no NetworkPolicy rule for port " + port));
  }
}
