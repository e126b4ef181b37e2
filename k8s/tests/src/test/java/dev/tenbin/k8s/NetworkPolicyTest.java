package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1NetworkPolicyIngressRule;
import io.kubernetes.client.openapi.models.V1NetworkPolicyPeer;
import io.kubernetes.client.openapi.models.V1NetworkPolicyPort;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Who the rendered NetworkPolicies admit, evaluated as Kubernetes does (a peer's namespaceSelector
 * and podSelector must both match; a podSelector alone means the policy's namespace): each service
 * admits its own client label only, the per-service labels work from the listed namespaces, and the
 * metrics port admits the configured monitoring namespace.
 */
class NetworkPolicyTest {
  static final String NAMESPACE = "tenbin";

  static final Map<String, Integer> PORTS =
      Map.of("encoder", 50051, "index", 50052, "rerank", 50053, "eval", 50054);

  /** A calling pod: its namespace, that namespace's labels, and its own labels. */
  record Caller(String namespace, Map<String, String> namespaceLabels, Map<String, String> labels) {
    static Caller here(Map<String, String> labels) {
      return in(NAMESPACE, labels);
    }

    static Caller in(String namespace, Map<String, String> labels) {
      return new Caller(namespace, Map.of("kubernetes.io/metadata.name", namespace), labels);
    }
  }

  static boolean matches(V1LabelSelector selector, Map<String, String> labels) {
    assertThat(selector.getMatchExpressions()).as("only matchLabels are rendered").isNullOrEmpty();
    Map<String, String> wanted =
        selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
    return wanted.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  static boolean admits(V1NetworkPolicyPeer peer, Caller caller) {
    if (peer.getIpBlock() != null) {
      return false;
    }
    boolean namespaceOk =
        peer.getNamespaceSelector() == null
            ? caller.namespace().equals(NAMESPACE)
            : matches(peer.getNamespaceSelector(), caller.namespaceLabels());
    boolean podOk =
        peer.getPodSelector() == null || matches(peer.getPodSelector(), caller.labels());
    return namespaceOk && podOk;
  }

  /** Whether {@code policy} lets {@code caller} reach {@code port} of the pods it selects. */
  static boolean admits(V1NetworkPolicy policy, Caller caller, int port) {
    for (V1NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
      List<V1NetworkPolicyPort> ports = rule.getPorts();
      boolean portOk =
          ports == null
              || ports.isEmpty()
              || ports.stream()
                  .anyMatch(p -> p.getPort() != null && p.getPort().getIntValue() == port);
      List<V1NetworkPolicyPeer> from = rule.getFrom();
      boolean fromOk =
          from == null || from.isEmpty() || from.stream().anyMatch(p -> admits(p, caller));
      if (portOk && fromOk) {
        return true;
      }
    }
    return false;
  }

  static Map<String, V1NetworkPolicy> policies(List<Manifest> manifests) {
    Map<String, V1NetworkPolicy> byService = new java.util.TreeMap<>();
    for (Manifest m : manifests) {
      if (m.model() instanceof V1NetworkPolicy p) {
        byService.put(m.name().replace("tb-tenbin-", ""), p);
      }
    }
    assertThat(byService).containsOnlyKeys(PORTS.keySet());
    return byService;
  }

  /** The services whose gRPC port admits {@code caller}. */
  static TreeSet<String> servicesReachedBy(List<Manifest> manifests, Caller caller) {
    TreeSet<String> reached = new TreeSet<>();
    policies(manifests)
        .forEach(
            (service, policy) -> {
              if (admits(policy, caller, PORTS.get(service))) {
                reached.add(service);
              }
            });
    return reached;
  }

  @ParameterizedTest
  @ValueSource(strings = {"encoder", "index", "rerank", "eval"})
  void aServicesClientLabelAdmitsToThatServiceAndNoOther(String service) {
    List<Manifest> manifests = Charts.render("");
    Caller caller = Caller.here(Map.of("tenbin.dev/" + service + "-client", "true"));
    assertThat(servicesReachedBy(manifests, caller)).containsExactly(service);
    assertThat(servicesReachedBy(manifests, Caller.here(Map.of("app", "other")))).isEmpty();
  }

  @Test
  void aPodAllowedToEmbedIsRefusedByTheIndexAndTheEvalServiceOnEveryPort() {
    List<Manifest> manifests = Charts.render("encoder:\n  http:\n    enabled: true\n");
    Caller embedder = Caller.here(Map.of("tenbin.dev/encoder-client", "true"));
    Map<String, V1NetworkPolicy> policies = policies(manifests);
    assertThat(admits(policies.get("encoder"), embedder, 50051)).isTrue();
    assertThat(admits(policies.get("encoder"), embedder, 8080)).as("the HTTP API").isTrue();
    for (String other : List.of("index", "rerank", "eval")) {
      for (int port : List.of(PORTS.get(other), 9464, 8081)) {
        assertThat(admits(policies.get(other), embedder, port)).as(other + ":" + port).isFalse();
      }
    }
  }

  @Test
  void theEvalWebUiAdmitsTheEvalServicesClientsAndNoOthers() {
    List<Manifest> manifests = Charts.render("");
    Map<String, V1NetworkPolicy> policies = policies(manifests);
    V1NetworkPolicy eval = policies.get("eval");
    assertThat(admits(eval, Caller.here(Map.of("tenbin.dev/eval-client", "true")), 8081)).isTrue();
    assertThat(admits(eval, Caller.here(Map.of("tenbin.dev/client", "true")), 8081)).isTrue();
    for (String other : List.of("encoder", "index", "rerank")) {
      Caller caller = Caller.here(Map.of("tenbin.dev/" + other + "-client", "true"));
      assertThat(admits(eval, caller, 8081)).as(other).isFalse();
    }
    assertThat(admits(eval, Caller.here(Map.of("app", "other")), 8081)).isFalse();
    // Off: no rule for the port.
    V1NetworkPolicy off =
        policies(Charts.render("eval:\n  http:\n    enabled: false\n")).get("eval");
    assertThat(admits(off, Caller.here(Map.of("tenbin.dev/eval-client", "true")), 8081)).isFalse();
  }

  @Test
  void theAllServicesLabelAdmitsToAllFourInTheReleasesNamespaceOnly() {
    List<Manifest> manifests =
        Charts.render("networkPolicy:\n  clientNamespaces:\n    - {team: a}\n");
    assertThat(servicesReachedBy(manifests, Caller.here(Map.of("tenbin.dev/client", "true"))))
        .containsExactlyElementsOf(new TreeSet<>(PORTS.keySet()));
    assertThat(
            servicesReachedBy(
                manifests,
                new Caller("team-a", Map.of("team", "a"), Map.of("tenbin.dev/client", "true"))))
        .isEmpty();
  }

  @Test
  void aListedNamespaceAdmitsItsPodsThatCarryTheServicesLabelAndNotTheWholeNamespace() {
    List<Manifest> manifests =
        Charts.render(
            "networkPolicy:\n  clientNamespaces:\n    - {kubernetes.io/metadata.name: team-a}\n");
    assertThat(
            servicesReachedBy(
                manifests, Caller.in("team-a", Map.of("tenbin.dev/encoder-client", "true"))))
        .containsExactly("encoder");
    assertThat(
            servicesReachedBy(
                manifests,
                Caller.in(
                    "team-a",
                    Map.of("tenbin.dev/eval-client", "true", "tenbin.dev/index-client", "true"))))
        .containsExactly("eval", "index");
    assertThat(servicesReachedBy(manifests, Caller.in("team-a", Map.of("app", "other"))))
        .as("a pod of the namespace without a client label")
        .isEmpty();
    assertThat(
            servicesReachedBy(
                manifests, Caller.in("team-b", Map.of("tenbin.dev/encoder-client", "true"))))
        .as("the label in a namespace not listed")
        .isEmpty();
  }

  @Test
  void extraClientsOfOneServiceReachThatServiceOnly() {
    List<Manifest> manifests =
        Charts.render(
            """
            networkPolicy:
              extraClients:
                eval:
                  - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ci}}
                    podSelector: {matchLabels: {app: submitter}}
            """);
    assertThat(servicesReachedBy(manifests, Caller.in("ci", Map.of("app", "submitter"))))
        .containsExactly("eval");
    assertThat(servicesReachedBy(manifests, Caller.in("ci", Map.of("app", "other")))).isEmpty();
  }

  @Test
  void theMetricsPortAdmitsTheMonitoringNamespaceAndTheTestPodsButNotTheClients() {
    for (V1NetworkPolicy policy : policies(Charts.render("")).values()) {
      assertThat(admits(policy, Caller.in("monitoring", Map.of("app", "prometheus")), 9464))
          .isTrue();
      assertThat(admits(policy, Caller.in("monitoring", Map.of("app", "prometheus")), 50051))
          .as("Prometheus reaches no gRPC port")
          .isFalse();
      assertThat(admits(policy, Caller.here(Map.of("tenbin.dev/client", "true")), 9464)).isFalse();
      assertThat(admits(policy, Caller.in("team-a", Map.of()), 9464)).isFalse();
      assertThat(
              admits(
                  policy,
                  Caller.here(
                      Map.of(
                          "app.kubernetes.io/name", "tenbin",
                          "app.kubernetes.io/instance", "tb",
                          "app.kubernetes.io/component", "test")),
                  9464))
          .as("the helm test pods read /readyz")
          .isTrue();
    }
    Caller prometheus =
        new Caller(
            "observability",
            Map.of("kubernetes.io/metadata.name", "observability", "team", "observability"),
            Map.of("app.kubernetes.io/name", "prometheus"));
    for (String values :
        List.of(
            "networkPolicy:\n  metrics:\n    namespace: observability\n",
            "networkPolicy:\n  metrics:\n    namespaceLabels: {team: observability}\n")) {
      for (V1NetworkPolicy policy :
          policies(Charts.render(values + "    podLabels: {app.kubernetes.io/name: prometheus}\n"))
              .values()) {
        assertThat(admits(policy, prometheus, 9464)).as(values).isTrue();
        assertThat(
                admits(
                    policy,
                    new Caller(
                        prometheus.namespace(),
                        prometheus.namespaceLabels(),
                        Map.of("app", "grafana")),
                    9464))
            .as("namespace and pod selector in one peer: both must match")
            .isFalse();
        assertThat(
                admits(
                    policy,
                    Caller.in("monitoring", Map.of("app.kubernetes.io/name", "prometheus")),
                    9464))
            .as("the default namespace is replaced, not added to")
            .isFalse();
      }
    }
    for (V1NetworkPolicy policy :
        policies(Charts.render("networkPolicy:\n  metrics:\n    namespace: \"\"\n")).values()) {
      assertThat(admits(policy, Caller.in("anywhere", Map.of()), 9464))
          .as("no namespace named: every namespace (NOTES warns)")
          .isTrue();
    }
  }

  @Test
  void theChartsOwnPodsReachWhatTheyCallAndNothingMore() {
    List<Manifest> manifests = Charts.renderCi("run-job", "");
    Map<String, String> evalPod =
        Charts.deployment(manifests, "tb-tenbin-eval")
            .getSpec()
            .getTemplate()
            .getMetadata()
            .getLabels();
    assertThat(servicesReachedBy(manifests, Caller.here(evalPod)))
        .containsExactly("encoder", "index", "rerank");
    V1Job run =
        manifests.stream()
            .filter(m -> m.model() instanceof V1Job)
            .findFirst()
            .orElseThrow()
            .as(V1Job.class);
    assertThat(
            servicesReachedBy(
                manifests, Caller.here(run.getSpec().getTemplate().getMetadata().getLabels())))
        .containsExactly("eval");
    Map<String, String> rerankPod =
        manifests.stream()
            .filter(m -> m.model() instanceof V1Deployment && m.name().equals("tb-tenbin-rerank"))
            .findFirst()
            .orElseThrow()
            .as(V1Deployment.class)
            .getSpec()
            .getTemplate()
            .getMetadata()
            .getLabels();
    assertThat(servicesReachedBy(manifests, Caller.here(rerankPod)))
        .containsExactly("encoder", "index");
  }
}
