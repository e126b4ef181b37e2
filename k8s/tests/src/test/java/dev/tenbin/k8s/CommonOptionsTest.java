package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Defect 8: the options every chart is expected to have, each rendered: name overrides, pod
 * annotations and labels (global and per component), the ServiceAccount, extra env / volumes /
 * mounts, priorityClassName, imagePullSecrets on every pod, and an immutable image tag.
 */
class CommonOptionsTest {
  private static final List<String> SERVERS = List.of("encoder", "index", "rerank", "eval");

  @Test
  void nameOverrideAndFullnameOverrideNameEveryObject() {
    List<Manifest> named = Charts.render("nameOverride: embed\n");
    assertThat(named)
        .allSatisfy(m -> assertThat(m.name()).startsWith("tb-embed"))
        .allSatisfy(
            m ->
                assertThat(m.tree().at("/metadata/labels/app.kubernetes.io~1name").asText())
                    .isEqualTo("embed"));
    assertThat(
            Charts.deployment(named, "tb-embed-encoder").getSpec().getSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/name", "embed");
    List<Manifest> full = Charts.render("fullnameOverride: search\n");
    assertThat(full).allSatisfy(m -> assertThat(m.name()).startsWith("search"));
    assertThat(
            Charts.deployment(full, "search-eval")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst()
                .getArgs())
        .contains(
            "dns:///search-encoder-headless:50051",
            "search-index-0.search-index-headless:50052,search-index-1.search-index-headless:50052");
    assertThat(Charts.failure("nameOverride: Not_A_Name\n")).contains("nameOverride");
  }

  @Test
  void podAnnotationsAndLabelsGlobalAndPerComponentTheComponentWinning() {
    List<Manifest> manifests =
        Charts.render(
            """
            podAnnotations: {team: search, sidecar.istio.io/inject: "false"}
            podLabels: {cost-center: "42"}
            encoder:
              podAnnotations: {team: encoders}
              podLabels: {tier: gpu, app.kubernetes.io/component: hijacked}
            """);
    for (String component : SERVERS) {
      var meta =
          manifests.stream()
              .filter(m -> m.name().equals("tb-tenbin-" + component) && Charts.podSpec(m) != null)
              .findFirst()
              .orElseThrow()
              .tree()
              .at("/spec/template/metadata");
      assertThat(meta.at("/annotations/sidecar.istio.io~1inject").asText()).isEqualTo("false");
      assertThat(meta.at("/labels/cost-center").asText()).isEqualTo("42");
      assertThat(meta.at("/labels/app.kubernetes.io~1component").asText())
          .as("the selector label cannot be overridden")
          .isEqualTo(component);
      assertThat(meta.at("/annotations/team").asText())
          .isEqualTo(component.equals("encoder") ? "encoders" : "search");
      assertThat(meta.at("/labels/tier").asText())
          .isEqualTo(component.equals("encoder") ? "gpu" : "");
    }
  }

  @Test
  void theServiceAccountIsCreatedNamedAnnotatedAndMountsNoTokenButForTheEvalExecutor() {
    List<Manifest> defaults = Charts.render("");
    V1ServiceAccount account =
        Charts.find(defaults, "ServiceAccount", "tb-tenbin").as(V1ServiceAccount.class);
    assertThat(account.getAutomountServiceAccountToken()).isFalse();
    for (String component : SERVERS) {
      V1PodSpec spec = Charts.podSpec(defaults, component);
      assertThat(spec.getServiceAccountName()).isEqualTo("tb-tenbin");
      assertThat(spec.getAutomountServiceAccountToken()).as(component).isFalse();
    }
    List<Manifest> named =
        Charts.render(
            "serviceAccount:\n  name: tenbin-runtime\n  annotations:\n    iam.gke.io/gcp-service-account: tenbin@p.iam.gserviceaccount.com\n");
    V1ServiceAccount renamed =
        Charts.find(named, "ServiceAccount", "tenbin-runtime").as(V1ServiceAccount.class);
    assertThat(renamed.getMetadata().getAnnotations())
        .containsKey("iam.gke.io/gcp-service-account");
    assertThat(Charts.podSpec(named, "encoder").getServiceAccountName())
        .isEqualTo("tenbin-runtime");

    List<Manifest> existing = Charts.render("serviceAccount:\n  create: false\n  name: shared\n");
    assertThat(existing).noneMatch(m -> m.type().endsWith("ServiceAccount"));
    assertThat(Charts.podSpec(existing, "index").getServiceAccountName()).isEqualTo("shared");

    List<Manifest> executor = Charts.renderCi("kubernetes-executor", "");
    V1PodSpec eval = Charts.podSpec(executor, "eval");
    assertThat(eval.getServiceAccountName()).isEqualTo("tb-tenbin-eval");
    assertThat(eval.getAutomountServiceAccountToken())
        .as("the executor calls the Kubernetes API")
        .isTrue();
    assertThat(Charts.podSpec(executor, "encoder").getAutomountServiceAccountToken()).isFalse();
  }

  @Test
  void extraEnvVolumesAndMountsGlobalThenPerComponent() {
    List<Manifest> manifests =
        Charts.render(
            """
            extraEnv: [{name: JAVA_TOOL_OPTIONS, value: "-Xlog:gc"}]
            extraVolumes: [{name: extra-ca, configMap: {name: corp-ca}}]
            extraVolumeMounts: [{name: extra-ca, mountPath: /etc/ssl/corp, readOnly: true}]
            rerank:
              extraEnv: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
              extraVolumes: [{name: scratch, emptyDir: {}}]
              extraVolumeMounts: [{name: scratch, mountPath: /scratch}]
            """);
    for (String component : SERVERS) {
      V1PodSpec spec = Charts.podSpec(manifests, component);
      V1Container server = spec.getContainers().getFirst();
      assertThat(server.getEnv()).extracting(e -> e.getName()).contains("JAVA_TOOL_OPTIONS");
      assertThat(spec.getVolumes()).extracting(v -> v.getName()).contains("extra-ca");
      assertThat(server.getVolumeMounts())
          .extracting(v -> v.getMountPath())
          .contains("/etc/ssl/corp");
      boolean rerank = component.equals("rerank");
      assertThat(server.getEnv().stream().anyMatch(e -> e.getName().equals("POD_NAME")))
          .isEqualTo(rerank);
      assertThat(spec.getVolumes().stream().anyMatch(v -> v.getName().equals("scratch")))
          .isEqualTo(rerank);
      assertThat(
              server.getVolumeMounts().stream().anyMatch(v -> v.getMountPath().equals("/scratch")))
          .isEqualTo(rerank);
    }
  }

  @Test
  void logFormatReachesEveryServerAndOnlyTextOrJsonAreAccepted() {
    for (String format : List.of("text", "json")) {
      List<Manifest> manifests = Charts.render("logFormat: " + format + "\n");
      for (String component : SERVERS) {
        assertThat(Charts.server(manifests, component).getEnv())
            .filteredOn(e -> e.getName().equals("TENBIN_LOG_FORMAT"))
            .singleElement()
            .satisfies(e -> assertThat(e.getValue()).isEqualTo(format));
      }
    }
    assertThat(Charts.failure("logFormat: xml\n")).contains("logFormat");
  }

  @Test
  void priorityClassNameGlobalAndPerComponent() {
    List<Manifest> manifests =
        Charts.render(
            "priorityClassName: tenbin-normal\nencoder:\n  priorityClassName: tenbin-high\n");
    assertThat(Charts.podSpec(manifests, "encoder").getPriorityClassName())
        .isEqualTo("tenbin-high");
    for (String component : List.of("index", "rerank", "eval")) {
      assertThat(Charts.podSpec(manifests, component).getPriorityClassName())
          .isEqualTo("tenbin-normal");
    }
    assertThat(Charts.podSpec(Charts.render(""), "encoder").getPriorityClassName()).isNull();
  }

  @Test
  void imagePullSecretsAreOnEveryPodAndOnTheServiceAccount() {
    List<Manifest> manifests =
        Charts.renderWithTests(
            "run-job",
            "imagePullSecrets: [{name: regcred}, {name: mirror}]\nencoder:\n  models:\n    persistence: {enabled: true}\n"
                + "    initDownload: {enabled: true, command: [sh, -c, 'true']}\n");
    int pods = 0;
    for (Manifest m : manifests) {
      V1PodSpec spec = Charts.podSpec(m);
      if (spec != null) {
        pods++;
        assertThat(spec.getImagePullSecrets())
            .as(m.name())
            .extracting(r -> r.getName())
            .containsExactly("regcred", "mirror");
      }
    }
    assertThat(pods).as("4 servers, the run Job, the models fill Job, 6 test pods").isEqualTo(12);
    assertThat(
            Charts.find(manifests, "ServiceAccount", "tb-tenbin")
                .as(V1ServiceAccount.class)
                .getImagePullSecrets())
        .as("the eval executor's shard pods run under this account")
        .extracting(r -> r.getName())
        .containsExactly("regcred", "mirror");
    assertThat(Charts.failure("imagePullSecrets: [regcred]\n")).contains("imagePullSecrets.0");
  }

  @Test
  void theDefaultImageTagIsTheAppVersionOfTheVersionGitshaFormAndMutableTagsAreRefused() {
    String appVersion = ChartRenderingTest.appVersion();
    assertThat(appVersion).matches("[0-9]+\\.[0-9]+\\.[0-9]+-[0-9a-f]{7,40}");
    List<Manifest> defaults = Charts.render("");
    for (String component : SERVERS) {
      assertThat(Charts.server(defaults, component).getImage()).isEqualTo("tenbin:" + appVersion);
    }
    assertThat(
            Charts.server(Charts.render("encoder:\n  gpu: {enabled: true}\n"), "encoder")
                .getImage())
        .isEqualTo("tenbin:" + appVersion + "-gpu");
    assertThat(
            Charts.server(
                    Charts.render("image:\n  repository: r.example/tenbin\n  tag: 0.2.0-1a2b3c4\n"),
                    "index")
                .getImage())
        .isEqualTo("r.example/tenbin:0.2.0-1a2b3c4");
    String digest = "sha256:" + "a".repeat(64);
    assertThat(
            Charts.server(Charts.render("image:\n  digest: " + digest + "\n"), "eval").getImage())
        .isEqualTo("tenbin@" + digest);
    assertThat(Charts.failure("image:\n  tag: 0.1.0-SNAPSHOT\n"))
        .contains("image.tag \"0.1.0-SNAPSHOT\" is mutable");
    assertThat(Charts.failure("image:\n  tag: latest\n"))
        .contains("image.tag \"latest\" is mutable");
    assertThat(Charts.failure("image:\n  digest: sha256:abc\n")).contains("image.digest");
  }

  @Test
  void theOptionsKeepEveryObjectStrictlyValid() {
    List<Manifest> manifests =
        Charts.renderWithTests(
            "kubernetes-executor",
            """
            nameOverride: embed
            podAnnotations: {a: b}
            podLabels: {c: d}
            priorityClassName: p
            imagePullSecrets: [{name: regcred}]
            serviceAccount: {annotations: {x: "y"}}
            extraEnv: [{name: A, value: b}]
            extraVolumes: [{name: v, emptyDir: {}}]
            extraVolumeMounts: [{name: v, mountPath: /v}]
            """);
    assertThat(manifests)
        .hasSizeGreaterThan(20)
        .allSatisfy(m -> assertThat(m.name()).startsWith("tb-embed"));
  }
}
