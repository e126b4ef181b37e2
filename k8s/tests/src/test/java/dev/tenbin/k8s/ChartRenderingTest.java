package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lints and renders k8s/helm/tenbin through helm-java for the default, gpu and minimal values
 * files, and builds the kustomize overlays with kubectl when it is installed; every object is
 * validated strictly against the Kubernetes API models, then checked for the behaviour the chart
 * promises.
 */
class ChartRenderingTest {
  static final Path K8S = Charts.K8S;
  static final Path CHART = Charts.CHART;

  static String render(String values, String release) {
    var template = new Helm(CHART).template().withName(release);
    if (!values.equals("default")) {
      template = template.withValuesFile(CHART.resolve("ci/" + values + "-values.yaml"));
    }
    return template.call();
  }

  static List<Manifest> rendered(String values) {
    List<Manifest> manifests = Manifests.parse(render(values, "tb"));
    System.out.println("helm template (" + values + " values): " + manifests.size() + " objects");
    return manifests;
  }

  static List<V1PodSpec> podSpecs(List<Manifest> manifests) {
    List<V1PodSpec> specs = new ArrayList<>();
    for (Manifest m : manifests) {
      if (m.model() instanceof V1Deployment d) {
        specs.add(d.getSpec().getTemplate().getSpec());
      } else if (m.model() instanceof V1StatefulSet s) {
        specs.add(s.getSpec().getTemplate().getSpec());
      }
    }
    return specs;
  }

  static V1Deployment deployment(List<Manifest> manifests, String name) {
    return manifests.stream()
        .filter(m -> m.model() instanceof V1Deployment && m.name().equals(name))
        .findFirst()
        .orElseThrow()
        .as(V1Deployment.class);
  }

  @Test
  void theChartPassesStrictLint() {
    var result = new Helm(CHART).lint().strict().call();
    assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
  }

  @Test
  void strictValidationRejectsAFieldTheApiDoesNotDefine() {
    String yaml =
        "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: [{port: 1}], clusterIp: None}\n";
    assertThatThrownBy(() -> Manifests.parse(yaml)).hasMessageContaining("clusterIp");
  }

  /** Every values file under ci/, plus the defaults. */
  static final String[] VARIANTS = {
    "default",
    "tls",
    "mtls-token",
    "gpu",
    "http-ingress",
    "run-job",
    "kubernetes-executor",
    "minimal"
  };

  @Test
  void everyCiValuesFileIsAVariantTheTestsRender() throws IOException {
    try (var files = Files.list(CHART.resolve("ci"))) {
      assertThat(files.map(f -> f.getFileName().toString().replace("-values.yaml", "")))
          .containsExactlyInAnyOrder(
              java.util.Arrays.stream(VARIANTS)
                  .filter(v -> !v.equals("default"))
                  .toArray(String[]::new));
    }
  }

  static java.util.stream.Stream<String> variants() {
    return java.util.Arrays.stream(VARIANTS);
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("variants")
  void everyContainerHasProbesResourcesAndTheRestrictedSecurityContext(String values) {
    List<V1PodSpec> specs = podSpecs(rendered(values));
    assertThat(specs).isNotEmpty();
    for (V1PodSpec spec : specs) {
      assertThat(spec.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(spec.getSecurityContext().getSeccompProfile().getType())
          .isEqualTo("RuntimeDefault");
      assertThat(spec.getVolumes()).anySatisfy(v -> assertThat(v.getName()).isEqualTo("tmp"));
      List<V1Container> all = new ArrayList<>(spec.getContainers());
      if (spec.getInitContainers() != null) {
        all.addAll(spec.getInitContainers());
      }
      for (V1Container c : all) {
        assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(c.getResources().getLimits()).containsKeys("cpu", "memory");
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
      }
      V1Container server = spec.getContainers().getFirst();
      for (V1Probe probe :
          List.of(
              server.getLivenessProbe(), server.getReadinessProbe(), server.getStartupProbe())) {
        assertThat(probe.getHttpGet().getPort().getStrValue()).isEqualTo("metrics");
        assertThat(probe.getGrpc()).isNull();
      }
      assertThat(server.getVolumeMounts())
          .anySatisfy(v -> assertThat(v.getMountPath()).isEqualTo("/tmp"));
      assertThat(server.getLifecycle().getPreStop().getSleep().getSeconds()).isEqualTo(5L);
      String grace =
          server.getEnv().stream()
              .filter(e -> e.getName().equals("TENBIN_SHUTDOWN_GRACE_SECONDS"))
              .findFirst()
              .orElseThrow()
              .getValue();
      assertThat(spec.getTerminationGracePeriodSeconds())
          .isGreaterThanOrEqualTo(Long.parseLong(grace) + 5);
      assertThat(server.getEnv())
          .as("a server bound to loopback (the services' default) is unreachable on the pod IP")
          .anySatisfy(
              e -> {
                assertThat(e.getName()).isEqualTo("TENBIN_HOST");
                assertThat(e.getValue()).isEqualTo("0.0.0.0");
              });
    }
  }

  @Test
  void theEvalServicesEmbeddingCacheLivesOnItsVolumeUnlessToldOtherwise() {
    V1PodSpec kept = Charts.podSpec(rendered("default"), "eval");
    assertThat(kept.getContainers().getFirst().getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/var/cache/tenbin");
              assertThat(m.getName()).isEqualTo("state");
              assertThat(m.getSubPath()).isEqualTo("embedding-cache");
            });
    assertThat(kept.getVolumes()).noneSatisfy(v -> assertThat(v.getName()).isEqualTo("cache"));
    // the encoder keeps its per-pod cache volume
    assertThat(Charts.server(rendered("default"), "encoder").getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/var/cache/tenbin");
              assertThat(m.getName()).isEqualTo("cache");
            });

    V1PodSpec emptied =
        Charts.podSpec(Charts.render("eval:\n  persistence:\n    keepCache: false\n"), "eval");
    assertThat(emptied.getContainers().getFirst().getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/var/cache/tenbin");
              assertThat(m.getName()).isEqualTo("cache");
              assertThat(m.getSubPath()).isNull();
            });
    assertThat(emptied.getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).isEqualTo("cache");
              assertThat(v.getEmptyDir()).isNotNull();
            });
  }

  @Test
  void eachServerGetsItsHeapShareOfTheMemoryLimitAndAValueOverridesIt() {
    java.util.Map<String, String> expected =
        java.util.Map.of("encoder", "50", "index", "50", "rerank", "50", "eval", "75");
    List<Manifest> defaults = rendered("default");
    expected.forEach(
        (component, percent) ->
            assertThat(Charts.server(defaults, component).getEnv())
                .as(component)
                .anySatisfy(
                    e -> {
                      assertThat(e.getName()).isEqualTo("TENBIN_HEAP_PERCENT");
                      assertThat(e.getValue()).isEqualTo(percent);
                    }));
    List<Manifest> larger = Charts.render("encoder:\n  heapPercent: 60\n");
    assertThat(Charts.server(larger, "encoder").getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("TENBIN_HEAP_PERCENT");
              assertThat(e.getValue()).isEqualTo("60");
            });
    assertThat(Charts.failure("index:\n  heapPercent: 95\n"))
        .contains("index.heapPercent: Must be less than or equal to 90");
  }

  @Test
  void gpuValuesGiveTheEncoderAGpuLimitTheCudaImageAndGpuNodes() {
    List<Manifest> gpu = rendered("gpu");
    V1PodSpec spec = deployment(gpu, "tb-tenbin-encoder").getSpec().getTemplate().getSpec();
    V1Container encoder = spec.getContainers().getFirst();
    assertThat(encoder.getResources().getLimits())
        .containsEntry("nvidia.com/gpu", new Quantity("1"));
    assertThat(encoder.getImage()).endsWith("-gpu");
    assertThat(encoder.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("TENBIN_EXECUTION_PROVIDER");
              assertThat(e.getValue()).isEqualTo("cuda");
            });
    assertThat(spec.getRuntimeClassName()).isEqualTo("nvidia");
    assertThat(spec.getNodeSelector()).containsKey("nvidia.com/gpu.present");
    assertThat(spec.getTolerations())
        .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu"));

    V1Container cpu =
        deployment(rendered("default"), "tb-tenbin-encoder")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .getFirst();
    assertThat(cpu.getResources().getLimits()).doesNotContainKey("nvidia.com/gpu");
    assertThat(cpu.getImage()).doesNotEndWith("-gpu");
  }

  @Test
  void gpuValuesWireTlsTokenMonitoringAndTheQueueDepthMetric() {
    List<Manifest> gpu = rendered("gpu");
    assertThat(gpu)
        .extracting(Manifest::type)
        .contains(Manifests.CUSTOM_RESOURCES.toArray(String[]::new));
    V1Container encoder =
        deployment(gpu, "tb-tenbin-encoder")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .getFirst();
    assertThat(encoder.getEnv())
        .extracting(e -> e.getName())
        .contains(
            "TENBIN_TLS_CERT", "TENBIN_TLS_KEY", "TENBIN_TLS_CLIENT_CA", "TENBIN_AUTH_TOKEN_FILE")
        .doesNotContain("TENBIN_ALLOW_PLAINTEXT");
    assertThat(gpu)
        .filteredOn(
            m -> m.type().endsWith("HorizontalPodAutoscaler") && m.name().endsWith("encoder"))
        .singleElement()
        .satisfies(
            m ->
                assertThat(m.tree().at("/spec/metrics/0/pods/metric/name").asText())
                    .as("GPU encoders scale on the queue gauge tenbin.encoder.queue.inputs alone")
                    .isEqualTo("tenbin_encoder_queue_inputs"));
  }

  @Test
  void theIndexIsAStatefulSetWithAVolumeClaimPerReplicaAndAHeadlessService() {
    List<Manifest> manifests = rendered("default");
    V1StatefulSet index =
        manifests.stream()
            .filter(m -> m.model() instanceof V1StatefulSet)
            .findFirst()
            .orElseThrow()
            .as(V1StatefulSet.class);
    assertThat(index.getSpec().getVolumeClaimTemplates())
        .singleElement()
        .satisfies(t -> assertThat(t.getMetadata().getName()).isEqualTo("data"));
    assertThat(index.getSpec().getTemplate().getSpec().getContainers().getFirst().getVolumeMounts())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).isEqualTo("data");
              assertThat(v.getMountPath()).isEqualTo("/var/lib/tenbin/index");
            });
    assertThat(manifests)
        .anySatisfy(
            m -> {
              assertThat(m.name()).isEqualTo(index.getSpec().getServiceName());
              assertThat(m.tree().at("/spec/clusterIP").asText()).isEqualTo("None");
            });
  }

  @Test
  void networkPoliciesGuardEveryServiceWhenEnabledAndAreAbsentWhenDisabled() {
    assertThat(rendered("default"))
        .filteredOn(m -> m.type().endsWith("NetworkPolicy"))
        .extracting(Manifest::name)
        .containsExactlyInAnyOrder(
            "tb-tenbin-encoder", "tb-tenbin-index", "tb-tenbin-rerank", "tb-tenbin-eval");
    assertThat(rendered("minimal")).noneMatch(m -> m.type().endsWith("NetworkPolicy"));
  }

  @Test
  void theRerankPodsMayReachTheEncoderAndTheIndexAndNothingElse() {
    for (Manifest policy :
        rendered("default").stream().filter(m -> m.type().endsWith("NetworkPolicy")).toList()) {
      List<String> components = new java.util.ArrayList<>();
      policy
          .tree()
          .at("/spec/ingress/0/from")
          .forEach(
              from ->
                  components.add(
                      from.at("/podSelector/matchLabels/app.kubernetes.io~1component").asText()));
      boolean admitsRerank = components.contains("rerank");
      assertThat(admitsRerank)
          .as(policy.name() + " admits the rerank pods")
          .isEqualTo(policy.name().endsWith("-encoder") || policy.name().endsWith("-index"));
    }
  }

  @Test
  void
      theKubernetesExecutorGivesTheEvalServiceAnAccountARoleOfExactlyItsVerbsAndTheSharedResults() {
    assertThat(rendered("default"))
        .noneMatch(
            m ->
                m.type().startsWith("rbac.")
                    || (m.type().endsWith("ServiceAccount") && m.name().endsWith("-eval")));
    List<Manifest> manifests = rendered("kubernetes-executor");
    io.kubernetes.client.openapi.models.V1Role role =
        manifests.stream()
            .filter(m -> m.type().equals("rbac.authorization.k8s.io/v1/Role"))
            .findFirst()
            .orElseThrow()
            .as(io.kubernetes.client.openapi.models.V1Role.class);
    assertThat(role.getRules())
        .extracting(
            r -> String.join(",", r.getApiGroups()) + "/" + String.join(",", r.getResources()),
            r -> String.join(",", r.getVerbs()))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("batch/jobs", "create,get,list,watch,delete"),
            org.assertj.core.groups.Tuple.tuple("batch/jobs/status", "get"),
            org.assertj.core.groups.Tuple.tuple("/pods", "get,list"));
    io.kubernetes.client.openapi.models.V1RoleBinding binding =
        manifests.stream()
            .filter(m -> m.type().equals("rbac.authorization.k8s.io/v1/RoleBinding"))
            .findFirst()
            .orElseThrow()
            .as(io.kubernetes.client.openapi.models.V1RoleBinding.class);
    assertThat(binding.getRoleRef().getName()).isEqualTo("tb-tenbin-eval");
    assertThat(binding.getSubjects().getFirst().getName()).isEqualTo("tb-tenbin-eval");
    assertThat(manifests).anySatisfy(m -> assertThat(m.name()).isEqualTo("tb-tenbin-eval-results"));

    V1PodSpec eval = deployment(manifests, "tb-tenbin-eval").getSpec().getTemplate().getSpec();
    assertThat(eval.getServiceAccountName()).isEqualTo("tb-tenbin-eval");
    assertThat(eval.getAutomountServiceAccountToken()).isTrue();
    V1Container server = eval.getContainers().getFirst();
    assertThat(String.join(" ", server.getArgs()))
        .contains("--executor kubernetes")
        .contains("--parallelism 4")
        .contains("--pod-resource cpu=4 --pod-resource memory=16Gi")
        .contains("--results-pvc tb-tenbin-eval-results")
        .contains("--pod-tls-secret tenbin-tls")
        .contains("--pod-auth-secret tenbin-token")
        .contains("--pod-hub-secret tenbin-hf")
        .as("shard pods run under the servers' account: no API token, the pull secrets")
        .contains("--pod-service-account tb-tenbin")
        .contains("--index-pods");
    assertThat(server.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getName()).isEqualTo("results");
              assertThat(m.getMountPath()).isEqualTo("/var/lib/tenbin/eval/results");
            });
    assertThat(
            deployment(rendered("default"), "tb-tenbin-eval")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getAutomountServiceAccountToken())
        .isFalse();
  }

  /** The header of k8s/kustomize/base/tenbin.yaml. */
  static final String BASE_HEADER =
      """
      # Generated from k8s/helm/tenbin with default values, release name "tenbin" and without the helm test
      # pods (k8s/README.md, "Install with kubectl"); ChartRenderingTest checks it still matches the chart.
      """;

  /**
   * The kustomize base's objects: the chart rendered with default values, as the base holds them.
   */
  static List<String> kustomizeBaseAsRendered() {
    return render("default", "tenbin")
        .lines()
        .filter(l -> !l.isBlank())
        .filter(l -> !l.startsWith("# Source:") && !l.contains("helm.sh/chart:"))
        .map(l -> l.replace("managed-by: Helm", "managed-by: kustomize"))
        .toList();
  }

  /** Writes k8s/kustomize/base/tenbin.yaml from the chart as it is. */
  static void writeKustomizeBase() throws IOException {
    Files.writeString(
        K8S.resolve("kustomize/base/tenbin.yaml"),
        BASE_HEADER + String.join("\n", kustomizeBaseAsRendered()) + "\n");
  }

  /**
   * The kustomize base is the chart rendered with default values (helm-java's template leaves the
   * helm test hooks out, as {@code helm template --skip-tests} does). With {@code
   * -Dtenbin.regenerateKustomizeBase=true} this test writes the base instead of checking it.
   */
  @Test
  void theKustomizeBaseIsTheChartRenderedWithDefaultValues() throws IOException {
    if (Boolean.getBoolean("tenbin.regenerateKustomizeBase")) {
      writeKustomizeBase();
    }
    List<String> base = Files.readAllLines(K8S.resolve("kustomize/base/tenbin.yaml"));
    assertThat(String.join("\n", base.subList(0, 2)) + "\n").isEqualTo(BASE_HEADER);
    assertThat(base.stream().skip(2).filter(l -> !l.isBlank()).toList())
        .as("regenerate with -Dtenbin.regenerateKustomizeBase=true")
        .isEqualTo(kustomizeBaseAsRendered());
  }

  @ParameterizedTest
  @ValueSource(strings = {"cpu", "gpu"})
  void kustomizeOverlaysBuildStrictlyValidObjects(String overlay) throws Exception {
    Assumptions.assumeTrue(kubectlInstalled(), "kubectl is not installed");
    Process p =
        new ProcessBuilder(
                "kubectl", "kustomize", K8S.resolve("kustomize/overlays/" + overlay).toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    List<Manifest> manifests = Manifests.parse(out);
    System.out.println(
        "kubectl kustomize overlays/" + overlay + ": " + manifests.size() + " objects");
    V1Container encoder =
        deployment(manifests, "tenbin-encoder")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .getFirst();
    assertThat(encoder.getResources().getLimits().containsKey("nvidia.com/gpu"))
        .isEqualTo(overlay.equals("gpu"));
    assertThat(encoder.getImage())
        .isEqualTo(
            overlay.equals("gpu") ? "tenbin:" + appVersion() + "-gpu" : "tenbin:" + appVersion());
    assertThat(manifests)
        .allSatisfy(
            m -> assertThat(m.tree().at("/metadata/namespace").asText()).isEqualTo("tenbin"));
  }

  /** Chart.yaml's appVersion: the default image tag. */
  static String appVersion() {
    try {
      return Files.readAllLines(CHART.resolve("Chart.yaml")).stream()
          .filter(l -> l.startsWith("appVersion:"))
          .map(l -> l.substring("appVersion:".length()).trim().replace("\"", ""))
          .findFirst()
          .orElseThrow();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static boolean kubectlInstalled() {
    try {
      Process p =
          new ProcessBuilder("kubectl", "version", "--client").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
