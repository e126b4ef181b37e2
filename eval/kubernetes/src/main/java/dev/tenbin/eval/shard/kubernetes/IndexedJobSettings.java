package dev.tenbin.eval.shard.kubernetes;

import java.util.List;
import java.util.Map;

/**
 * What the Indexed Job of a sharded {@code tenbin run} is made of.
 *
 * @param namespace where the Job is created
 * @param name the Job's name (a DNS label of at most 63 characters)
 * @param image the Tenbin image the pods run (its entrypoint is the {@code tenbin} launcher)
 * @param shards completions: one index per shard
 * @param parallelism pods running at once (at most {@code shards})
 * @param backoffLimitPerIndex how many times Kubernetes restarts a failed index before it counts as
 *     failed
 * @param ttlSecondsAfterFinished how long the finished Job and its pods are kept
 * @param resultsClaim the ReadWriteMany PersistentVolumeClaim holding the job folder (and the spec,
 *     task sets and data the pods read)
 * @param resultsMountPath where the claim is mounted in the pods
 * @param runArgs the arguments of each pod after {@code run}: the spec, {@code --out}, the service
 *     targets; {@code --shard $(JOB_COMPLETION_INDEX)/K} is added
 * @param resources container requests and limits by resource name ("cpu", "memory",
 *     "nvidia.com/gpu"); empty for none
 * @param serviceAccount the pods' service account; "" for the namespace's default
 * @param labels more labels of the Job and its pods (e.g. the eval service's job id, by which a
 *     restarted service finds the Job again)
 * @param mounts more volumes of the pods: Secrets (TLS, auth token) and read-only claims (datasets)
 * @param hub how the pods reach a Hugging Face hub for hub task sets
 */
public record IndexedJobSettings(
    String namespace,
    String name,
    String image,
    int shards,
    int parallelism,
    int backoffLimitPerIndex,
    int ttlSecondsAfterFinished,
    String resultsClaim,
    String resultsMountPath,
    List<String> runArgs,
    Map<String, String> resources,
    String serviceAccount,
    Map<String, String> labels,
    List<Mount> mounts,
    PodHub hub) {
  /**
   * The hub the pods load hub task sets from (what {@code HF_TOKEN} and {@code HF_ENDPOINT} are to
   * a local run): the token comes from a Secret, never into the Job object itself.
   *
   * @param tokenSecret a Secret whose key {@code token} becomes the pods' {@code HF_TOKEN}; blank
   *     for none
   * @param endpoint the pods' {@code HF_ENDPOINT} (a mirror); blank for the public hub
   */
  public record PodHub(String tokenSecret, String endpoint) {
    /** No token, the public hub. */
    public static final PodHub NONE = new PodHub("", "");

    public PodHub {
      tokenSecret = tokenSecret == null ? "" : tokenSecret.strip();
      endpoint = endpoint == null ? "" : endpoint.strip();
    }
  }

  /** What a pod mounts besides the results claim. */
  public enum Source {
    /** A Secret, read-only. */
    SECRET,
    /** A PersistentVolumeClaim, read-only. */
    CLAIM
  }

  /**
   * A volume of the pods.
   *
   * @param name the volume's name in the pod (a DNS label)
   * @param source what it is
   * @param reference the Secret's or the claim's name
   * @param mountPath where the container sees it
   */
  public record Mount(String name, Source source, String reference, String mountPath) {}

  public IndexedJobSettings {
    if (shards < 1 || parallelism < 1) {
      throw new IllegalArgumentException("shards and parallelism must be at least 1");
    }
    parallelism = Math.min(parallelism, shards);
    runArgs = List.copyOf(runArgs);
    resources = Map.copyOf(resources);
    labels = Map.copyOf(labels);
    mounts = List.copyOf(mounts);
    hub = hub == null ? PodHub.NONE : hub;
  }
}
