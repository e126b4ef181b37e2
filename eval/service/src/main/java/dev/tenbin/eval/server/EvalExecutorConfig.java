package dev.tenbin.eval.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How the eval service runs the jobs it admits: {@code inline} in this process, or {@code
 * kubernetes} as one Indexed Job per job (each pod a shard writing into the job folder on the
 * shared results volume; the service merges). Checked at start: a bad or missing value is an {@link
 * IllegalArgumentException} naming its flag.
 *
 * @param kind "inline" or "kubernetes"
 * @param namespace the Jobs' namespace
 * @param parallelism shards per job, all run at once
 * @param retries backoffLimitPerIndex of each shard
 * @param image the Tenbin image of the pods
 * @param resultsClaim the ReadWriteMany claim of the results root, mounted in the pods at the
 *     service's results root
 * @param ttlSeconds ttlSecondsAfterFinished of the Jobs
 * @param resources requests and limits of each pod
 * @param serviceAccount the pods' service account ("" for the namespace's default)
 * @param tlsSecret the Secret holding the TLS files the service reaches the services with, mounted
 *     in the pods at {@link #POD_TLS_DIR} ("" when the service uses none)
 * @param authSecret the Secret holding the token the service sends, mounted at {@link
 *     #POD_AUTH_DIR} ("" when none)
 * @param datasetsClaim a claim holding the data roots, mounted read-only in the pods at the first
 *     data root ("" for none: jobs use hub datasets)
 * @param kubeconfig the client configuration, or null for the in-cluster service account
 * @param pollInterval how often a Job's status is read
 * @param shardArgs the pods' service endpoints and security flags
 * @param serviceUsesTlsFiles whether the service reaches the services with TLS files
 * @param serviceUsesToken whether it sends a token
 */
public record EvalExecutorConfig(
    String kind,
    String namespace,
    int parallelism,
    int retries,
    String image,
    String resultsClaim,
    int ttlSeconds,
    Map<String, String> resources,
    String serviceAccount,
    String tlsSecret,
    String authSecret,
    String datasetsClaim,
    Path kubeconfig,
    Duration pollInterval,
    List<String> shardArgs,
    boolean serviceUsesTlsFiles,
    boolean serviceUsesToken,
    String hubSecret,
    String hubEndpoint) {
  /** Where a pod finds the files of {@code tlsSecret}. */
  public static final Path POD_TLS_DIR = Path.of("/etc/tenbin/tls");

  /** Where a pod finds the files of {@code authSecret}. */
  public static final Path POD_AUTH_DIR = Path.of("/etc/tenbin/auth");

  /** Jobs run in the service's process. */
  public static final EvalExecutorConfig INLINE =
      new EvalExecutorConfig(
          "inline",
          "default",
          1,
          1,
          "",
          "",
          86400,
          Map.of(),
          "",
          "",
          "",
          "",
          null,
          Duration.ofSeconds(5),
          List.of(),
          false,
          false,
          "",
          "");

  public EvalExecutorConfig {
    resources = Map.copyOf(resources);
    shardArgs = List.copyOf(shardArgs);
    image = image == null ? "" : image;
    resultsClaim = resultsClaim == null ? "" : resultsClaim;
    serviceAccount = serviceAccount == null ? "" : serviceAccount;
    tlsSecret = tlsSecret == null ? "" : tlsSecret;
    authSecret = authSecret == null ? "" : authSecret;
    datasetsClaim = datasetsClaim == null ? "" : datasetsClaim;
    hubSecret = hubSecret == null ? "" : hubSecret;
    hubEndpoint = hubEndpoint == null ? "" : hubEndpoint;
    if (!kind.equals("inline") && !kind.equals("kubernetes")) {
      throw new IllegalArgumentException(
          "--executor must be inline or kubernetes, got '" + kind + "'");
    }
    if (kind.equals("kubernetes")) {
      require(!image.isBlank(), "--image is required with --executor kubernetes");
      require(
          !resultsClaim.isBlank(),
          "--results-pvc is required with --executor kubernetes: the ReadWriteMany claim of"
              + " --results-root, which the pods mount at the same path");
      require(
          namespace != null && namespace.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"),
          "--namespace must be a DNS label, got '" + namespace + "'");
      require(parallelism >= 1, "--parallelism must be at least 1, got " + parallelism);
      require(retries >= 0, "--retries must be at least 0, got " + retries);
      require(ttlSeconds >= 0, "--ttl-seconds must be at least 0, got " + ttlSeconds);
      require(pollInterval.toMillis() >= 1, "--poll-seconds must be positive, got " + pollInterval);
      require(
          !serviceUsesTlsFiles || !tlsSecret.isBlank(),
          "--pod-tls-secret is required: the service reaches the services with TLS files"
              + " (--service-tls-*), and the pods need the same Secret");
      require(
          !serviceUsesToken || !authSecret.isBlank(),
          "--pod-auth-secret is required: the service sends a token (--service-auth-token-file),"
              + " and the pods need the same Secret");
    }
  }

  /** Whether jobs run as Kubernetes Jobs. */
  public boolean kubernetes() {
    return kind.equals("kubernetes");
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }
}
