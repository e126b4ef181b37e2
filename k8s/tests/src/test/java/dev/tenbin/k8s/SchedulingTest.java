package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaim;
import io.kubernetes.client.openapi.models.V1PodDisruptionBudget;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import io.kubernetes.client.openapi.models.V2HorizontalPodAutoscaler;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Defect 4: scheduling that survives a drain and a node loss. Budgets never block a drain (rerank
 * had minAvailable 1 under an HPA minimum of 1); replicas spread over nodes and zones by default;
 * the shared models claim works with many replicas on many nodes; GPU mode keeps the user's node
 * selector and tolerations; GPU encoders scale on queue depth.
 */
class SchedulingTest {
  static java.util.stream.Stream<String> variants() {
    return java.util.Arrays.stream(ChartRenderingTest.VARIANTS);
  }

  /** The fewest pods a component runs: its HPA's minimum, or its replicas. */
  private static int minimumPods(List<Manifest> manifests, String name) {
    return manifests.stream()
        .filter(m -> m.model() instanceof V2HorizontalPodAutoscaler && m.name().equals(name))
        .map(m -> m.as(V2HorizontalPodAutoscaler.class).getSpec().getMinReplicas())
        .findFirst()
        .orElseGet(
            () ->
                Charts.find(manifests, name.endsWith("-index") ? "StatefulSet" : "Deployment", name)
                    .tree()
                    .at("/spec/replicas")
                    .asInt());
  }

  @ParameterizedTest
  @MethodSource("variants")
  void noBudgetBlocksADrain(String variant) {
    List<Manifest> manifests = Charts.renderCi(variant, "");
    for (Manifest m : manifests) {
      if (!(m.model() instanceof V1PodDisruptionBudget pdb)) {
        continue;
      }
      assertThat(pdb.getSpec().getMinAvailable()).as(m.name()).isNull();
      assertThat(pdb.getSpec().getMaxUnavailable().getIntValue())
          .as(m.name())
          .isGreaterThanOrEqualTo(1);
      assertThat(pdb.getSpec().getUnhealthyPodEvictionPolicy()).isEqualTo("AlwaysAllow");
      // at its smallest the component may still lose a pod to a drain
      assertThat(minimumPods(manifests, m.name())).isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void rerankRunsTwoPodsByDefaultSoADrainKeepsOneAndAOnePodComponentHasNoBudget() {
    List<Manifest> defaults = Charts.render("");
    V1PodDisruptionBudget rerank =
        Charts.find(defaults, "PodDisruptionBudget", "tb-tenbin-rerank")
            .as(V1PodDisruptionBudget.class);
    assertThat(minimumPods(defaults, "tb-tenbin-rerank"))
        .as("a drain evicts one pod and the other still serves")
        .isEqualTo(2);
    assertThat(
            minimumPods(
                Charts.render("rerank:\n  autoscaling:\n    enabled: false\n"), "tb-tenbin-rerank"))
        .isEqualTo(2);
    assertThat(rerank.getSpec().getMaxUnavailable().getIntValue()).isEqualTo(1);
    assertThat(rerank.getSpec().getMinAvailable()).isNull();

    List<Manifest> onePod =
        Charts.render("rerank:\n  replicas: 1\n  autoscaling:\n    enabled: false\n");
    assertThat(onePod)
        .noneMatch(
            m -> m.type().endsWith("PodDisruptionBudget") && m.name().equals("tb-tenbin-rerank"));
    assertThat(Charts.failure("encoder:\n  pdb:\n    minAvailable: 1\n"))
        .contains("encoder.pdb: Additional property minAvailable is not allowed");
  }

  @Test
  void replicasSpreadOverNodesAndZonesByDefault() {
    List<Manifest> manifests = Charts.render("");
    for (String component : List.of("encoder", "rerank", "index")) {
      V1PodSpec spec = Charts.podSpec(manifests, component);
      var preferred =
          spec.getAffinity()
              .getPodAntiAffinity()
              .getPreferredDuringSchedulingIgnoredDuringExecution();
      assertThat(preferred)
          .singleElement()
          .satisfies(
              w -> {
                assertThat(w.getPodAffinityTerm().getTopologyKey())
                    .isEqualTo("kubernetes.io/hostname");
                assertThat(w.getPodAffinityTerm().getLabelSelector().getMatchLabels())
                    .containsEntry("app.kubernetes.io/component", component);
              });
      assertThat(
              spec.getAffinity()
                  .getPodAntiAffinity()
                  .getRequiredDuringSchedulingIgnoredDuringExecution())
          .as("preferred only: a small cluster still schedules every replica")
          .isNullOrEmpty();
      assertThat(spec.getTopologySpreadConstraints())
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.getTopologyKey()).isEqualTo("topology.kubernetes.io/zone");
                assertThat(c.getWhenUnsatisfiable()).isEqualTo("ScheduleAnyway");
                assertThat(c.getMaxSkew()).isEqualTo(1);
              });
    }
    V1PodSpec eval = Charts.podSpec(manifests, "eval");
    assertThat(eval.getAffinity()).as("one pod: nothing to spread").isNull();
    assertThat(eval.getTopologySpreadConstraints()).isNullOrEmpty();
  }

  @Test
  void aComponentsOwnAffinityAndSpreadReplaceTheDefaults() {
    List<Manifest> manifests =
        Charts.render(
            """
            encoder:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                      - matchExpressions: [{key: pool, operator: In, values: [inference]}]
              topologySpreadConstraints:
                - maxSkew: 2
                  topologyKey: kubernetes.io/hostname
                  whenUnsatisfiable: DoNotSchedule
                  labelSelector: {matchLabels: {app.kubernetes.io/component: encoder}}
            scheduling:
              spreadAcrossZones: false
            """);
    V1PodSpec encoder = Charts.podSpec(manifests, "encoder");
    assertThat(encoder.getAffinity().getPodAntiAffinity()).isNull();
    assertThat(encoder.getAffinity().getNodeAffinity()).isNotNull();
    assertThat(encoder.getTopologySpreadConstraints())
        .singleElement()
        .satisfies(c -> assertThat(c.getMaxSkew()).isEqualTo(2));
    V1PodSpec rerank = Charts.podSpec(manifests, "rerank");
    assertThat(rerank.getAffinity().getPodAntiAffinity()).isNotNull();
    assertThat(rerank.getTopologySpreadConstraints()).isNullOrEmpty();
  }

  @Test
  void theSharedModelsClaimIsMountableOnEveryNodeAndReadOnlyInEveryServer() {
    List<Manifest> manifests =
        Charts.render("encoder:\n  models:\n    persistence:\n      enabled: true\n");
    V1PersistentVolumeClaim claim =
        Charts.find(manifests, "PersistentVolumeClaim", "tb-tenbin-models")
            .as(V1PersistentVolumeClaim.class);
    assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
    for (String component : List.of("encoder", "rerank")) {
      V1PodSpec spec = Charts.podSpec(manifests, component);
      V1Volume models =
          spec.getVolumes().stream()
              .filter(v -> v.getName().equals("models"))
              .findFirst()
              .orElseThrow();
      assertThat(models.getPersistentVolumeClaim().getClaimName()).isEqualTo("tb-tenbin-models");
      assertThat(models.getPersistentVolumeClaim().getReadOnly()).isTrue();
      V1VolumeMount mount =
          spec.getContainers().getFirst().getVolumeMounts().stream()
              .filter(v -> v.getName().equals("models"))
              .findFirst()
              .orElseThrow();
      assertThat(mount.getReadOnly()).isTrue();
    }
    assertThat(
            Charts.failure(
                "encoder:\n  models:\n    persistence:\n      enabled: true\n      accessModes: [ReadWriteOnce]\n"))
        .as("ReadWriteOnce under a Deployment of several replicas: Multi-Attach errors")
        .contains("encoder.models.persistence.accessModes.0");
  }

  @Test
  void aSharedClaimIsFilledOnceByAJobAndAPodsOwnVolumeByItsInitContainer() {
    String download =
        "    initDownload:\n      enabled: true\n      image: hub-cli:1\n      command: [sh, -c, 'download --revision abc']\n";
    List<Manifest> shared =
        Charts.render("encoder:\n  models:\n    persistence:\n      enabled: true\n" + download);
    assertThat(Charts.podSpec(shared, "encoder").getInitContainers()).isNullOrEmpty();
    V1Job fill =
        shared.stream()
            .filter(
                m -> m.model() instanceof V1Job && m.name().startsWith("tb-tenbin-models-fill-"))
            .findFirst()
            .orElseThrow()
            .as(V1Job.class);
    V1PodSpec pod = fill.getSpec().getTemplate().getSpec();
    assertThat(fill.getSpec().getParallelism()).isNull();
    assertThat(pod.getContainers().getFirst().getImage()).isEqualTo("hub-cli:1");
    assertThat(pod.getVolumes())
        .anySatisfy(
            v ->
                assertThat(v.getPersistentVolumeClaim().getClaimName())
                    .isEqualTo("tb-tenbin-models"));

    List<Manifest> perPod = Charts.render("encoder:\n  models:\n" + download);
    assertThat(perPod).noneMatch(m -> m.model() instanceof V1Job);
    assertThat(Charts.podSpec(perPod, "encoder").getInitContainers())
        .singleElement()
        .satisfies(c -> assertThat(c.getImage()).isEqualTo("hub-cli:1"));
  }

  @Test
  void theHubCacheIsAVolumePerPodAnEmptyDirOrAnEphemeralClaim() {
    V1Volume byDefault = volume(Charts.podSpec(Charts.render(""), "encoder"), "cache");
    assertThat(byDefault.getEmptyDir().getSizeLimit().toSuffixedString()).isEqualTo("10Gi");
    List<Manifest> ephemeral =
        Charts.render(
            "encoder:\n  models:\n    cache:\n      type: ephemeral\n      size: 50Gi\n      storageClass: fast\n");
    for (String component : List.of("encoder", "rerank")) {
      V1Volume cache = volume(Charts.podSpec(ephemeral, component), "cache");
      var claim = cache.getEphemeral().getVolumeClaimTemplate().getSpec();
      assertThat(claim.getStorageClassName()).isEqualTo("fast");
      assertThat(claim.getAccessModes()).containsExactly("ReadWriteOnce");
      assertThat(claim.getResources().getRequests().get("storage").toSuffixedString())
          .isEqualTo("50Gi");
    }
  }

  private static V1Volume volume(V1PodSpec spec, String name) {
    return spec.getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void gpuModeMergesTheUsersNodeSelectorAndTolerationsWithTheGpuOnes() {
    V1PodSpec spec = Charts.podSpec(Charts.renderCi("gpu", ""), "encoder");
    assertThat(spec.getNodeSelector())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("nvidia.com/gpu.present", "true", "pool", "inference"));
    assertThat(spec.getTolerations())
        .extracting(t -> t.getKey())
        .containsExactlyInAnyOrder("nvidia.com/gpu", "dedicated");
    assertThat(spec.getRuntimeClassName()).isEqualTo("nvidia");
    V1PodSpec override =
        Charts.podSpec(
            Charts.render(
                "encoder:\n  gpu:\n    enabled: true\n  nodeSelector:\n    nvidia.com/gpu.present: \"false\"\n"),
            "encoder");
    assertThat(override.getNodeSelector()).containsEntry("nvidia.com/gpu.present", "false");
  }

  @Test
  void gpuEncodersScaleOnQueueDepthNotOnCpu() {
    V2HorizontalPodAutoscaler gpu =
        Charts.find(
                Charts.render("encoder:\n  gpu:\n    enabled: true\n"),
                "HorizontalPodAutoscaler",
                "tb-tenbin-encoder")
            .as(V2HorizontalPodAutoscaler.class);
    assertThat(gpu.getSpec().getMetrics())
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getType()).isEqualTo("Pods");
              assertThat(m.getPods().getMetric().getName())
                  .isEqualTo("tenbin_encoder_queue_inputs");
            });
    V2HorizontalPodAutoscaler cpu =
        Charts.find(Charts.render(""), "HorizontalPodAutoscaler", "tb-tenbin-encoder")
            .as(V2HorizontalPodAutoscaler.class);
    assertThat(cpu.getSpec().getMetrics())
        .singleElement()
        .satisfies(m -> assertThat(m.getResource().getName()).isEqualTo("cpu"));
  }
}
