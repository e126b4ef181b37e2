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
    String serviceAccount) {
  public IndexedJobSettings {
    if (shards < 1 || parallelism < 1) {
      throw new IllegalArgumentException("shards and parallelism must be at least 1");
    }
    parallelism = Math.min(parallelism, shards);
    runArgs = List.copyOf(runArgs);
    resources = Map.copyOf(resources);
  }
}
