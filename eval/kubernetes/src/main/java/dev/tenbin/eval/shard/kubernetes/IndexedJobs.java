package dev.tenbin.eval.shard.kubernetes;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Capabilities;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1EmptyDirVolumeSource;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1JobSpec;
import io.kubernetes.client.openapi.models.V1ObjectFieldSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimVolumeSource;
import io.kubernetes.client.openapi.models.V1PodFailurePolicy;
import io.kubernetes.client.openapi.models.V1PodFailurePolicyOnExitCodesRequirement;
import io.kubernetes.client.openapi.models.V1PodFailurePolicyOnPodConditionsPattern;
import io.kubernetes.client.openapi.models.V1PodFailurePolicyRule;
import io.kubernetes.client.openapi.models.V1PodSecurityContext;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1SeccompProfile;
import io.kubernetes.client.openapi.models.V1SecretVolumeSource;
import io.kubernetes.client.openapi.models.V1SecurityContext;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Indexed Job of a sharded {@code tenbin run}: completion index i runs {@code tenbin run SPEC
 * --shard i/K} with the shared results claim mounted; a pod that exits 2 (bad spec or flag) fails
 * the whole Job at once, a pod evicted or preempted (condition {@code DisruptionTarget}) is
 * restarted without counting against its index's {@code backoffLimitPerIndex}. Pods run as the
 * chart's services do: user 10001, no privilege escalation, no capabilities, a read-only root
 * filesystem with {@code /tmp} and the cache directory on emptyDir volumes.
 */
public final class IndexedJobs {
  /** The container's name (the exit-code rule of the pod failure policy names it). */
  public static final String CONTAINER = "shard";

  /** Exit code of {@code tenbin} for bad input: the same spec fails on every index. */
  public static final int EXIT_USAGE = 2;

  /** The user and group of the image (numeric, so runAsNonRoot can be verified). */
  public static final long USER = 10001;

  /** Labels every object of a sharded run carries. */
  public static final String COMPONENT_LABEL = "app.kubernetes.io/component";

  /** The label the chart's NetworkPolicies admit to the services' ports. */
  public static final String CLIENT_LABEL = "tenbin.dev/client";

  private IndexedJobs() {}

  /** The Job of {@code settings}. */
  public static V1Job build(IndexedJobSettings settings) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/name", "tenbin");
    labels.put(COMPONENT_LABEL, "eval-shard");
    labels.put("tenbin.dev/run", settings.name());
    labels.putAll(settings.labels());
    // The pods call the services: the chart's NetworkPolicies let in pods with this label.
    Map<String, String> podLabels = new LinkedHashMap<>(labels);
    podLabels.put(CLIENT_LABEL, "true");

    List<String> args = new ArrayList<>();
    args.add("run");
    args.addAll(settings.runArgs());
    args.add("--shard");
    args.add("$(JOB_COMPLETION_INDEX)/" + settings.shards());

    V1Container container =
        new V1Container()
            .name(CONTAINER)
            .image(settings.image())
            .args(args)
            .addEnvItem(
                new V1EnvVar()
                    .name("JOB_COMPLETION_INDEX")
                    .valueFrom(
                        new V1EnvVarSource()
                            .fieldRef(
                                new V1ObjectFieldSelector()
                                    .fieldPath(
                                        "metadata.annotations['batch.kubernetes.io/job-completion-index']"))))
            .addEnvItem(new V1EnvVar().name("TENBIN_CACHE_DIR").value("/var/cache/tenbin"))
            .addVolumeMountsItem(
                new V1VolumeMount().name("results").mountPath(settings.resultsMountPath()))
            .addVolumeMountsItem(new V1VolumeMount().name("tmp").mountPath("/tmp"))
            .addVolumeMountsItem(new V1VolumeMount().name("cache").mountPath("/var/cache/tenbin"))
            .securityContext(
                new V1SecurityContext()
                    .allowPrivilegeEscalation(false)
                    .readOnlyRootFilesystem(true)
                    .runAsNonRoot(true)
                    .capabilities(new V1Capabilities().addDropItem("ALL")));
    if (!settings.hub().tokenSecret().isEmpty()) {
      container.addEnvItem(
          new V1EnvVar()
              .name("HF_TOKEN")
              .valueFrom(
                  new V1EnvVarSource()
                      .secretKeyRef(
                          new io.kubernetes.client.openapi.models.V1SecretKeySelector()
                              .name(settings.hub().tokenSecret())
                              .key("token"))));
    }
    if (!settings.hub().endpoint().isEmpty()) {
      container.addEnvItem(new V1EnvVar().name("HF_ENDPOINT").value(settings.hub().endpoint()));
    }
    if (!settings.resources().isEmpty()) {
      Map<String, Quantity> quantities = new LinkedHashMap<>();
      settings
          .resources()
          .forEach((name, value) -> quantities.put(name, Quantity.fromString(value)));
      container.resources(new V1ResourceRequirements().requests(quantities).limits(quantities));
    }

    V1PodSpec pod =
        new V1PodSpec()
            .restartPolicy("Never")
            .securityContext(
                new V1PodSecurityContext()
                    .runAsNonRoot(true)
                    .runAsUser(USER)
                    .runAsGroup(USER)
                    .fsGroup(USER)
                    .seccompProfile(new V1SeccompProfile().type("RuntimeDefault")))
            .addContainersItem(container)
            .addVolumesItem(
                new V1Volume()
                    .name("results")
                    .persistentVolumeClaim(
                        new V1PersistentVolumeClaimVolumeSource()
                            .claimName(settings.resultsClaim())))
            .addVolumesItem(
                new V1Volume()
                    .name("tmp")
                    .emptyDir(new V1EmptyDirVolumeSource().sizeLimit(Quantity.fromString("1Gi"))))
            .addVolumesItem(new V1Volume().name("cache").emptyDir(new V1EmptyDirVolumeSource()));
    for (IndexedJobSettings.Mount mount : settings.mounts()) {
      container.addVolumeMountsItem(
          new V1VolumeMount().name(mount.name()).mountPath(mount.mountPath()).readOnly(true));
      V1Volume volume = new V1Volume().name(mount.name());
      switch (mount.source()) {
        case SECRET -> volume.secret(new V1SecretVolumeSource().secretName(mount.reference()));
        case CLAIM ->
            volume.persistentVolumeClaim(
                new V1PersistentVolumeClaimVolumeSource()
                    .claimName(mount.reference())
                    .readOnly(true));
      }
      pod.addVolumesItem(volume);
    }
    if (!settings.serviceAccount().isEmpty()) {
      pod.serviceAccountName(settings.serviceAccount());
    }

    V1PodFailurePolicy failurePolicy =
        new V1PodFailurePolicy()
            .addRulesItem(
                new V1PodFailurePolicyRule()
                    .action("FailJob")
                    .onExitCodes(
                        new V1PodFailurePolicyOnExitCodesRequirement()
                            .containerName(CONTAINER)
                            .operator("In")
                            .addValuesItem(EXIT_USAGE)))
            .addRulesItem(
                new V1PodFailurePolicyRule()
                    .action("Ignore")
                    .addOnPodConditionsItem(
                        new V1PodFailurePolicyOnPodConditionsPattern()
                            .type("DisruptionTarget")
                            .status("True")));

    return new V1Job()
        .apiVersion("batch/v1")
        .kind("Job")
        .metadata(
            new V1ObjectMeta().name(settings.name()).namespace(settings.namespace()).labels(labels))
        .spec(
            new V1JobSpec()
                .completionMode("Indexed")
                .completions(settings.shards())
                .parallelism(settings.parallelism())
                .backoffLimitPerIndex(settings.backoffLimitPerIndex())
                .podFailurePolicy(failurePolicy)
                .ttlSecondsAfterFinished(settings.ttlSecondsAfterFinished())
                .template(
                    new V1PodTemplateSpec()
                        .metadata(new V1ObjectMeta().labels(podLabels))
                        .spec(pod)));
  }
}
