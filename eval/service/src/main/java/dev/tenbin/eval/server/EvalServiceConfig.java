package dev.tenbin.eval.server;

import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobSpec;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.rpc.ServerSettings;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The eval service's one typed configuration, built once from flags and environment and checked at
 * start (a bad value is an {@link IllegalArgumentException} naming its flag).
 *
 * @param server network settings
 * @param folders the job table's folder, the results root and the data roots
 * @param services where the jobs' index, encoder and rerank services are (embedded unless given),
 *     how to reach them, and the model and cache folders
 * @param executor how jobs run: in this process, or as Kubernetes Jobs
 * @param defaultShards the shards each collection of a job is split into when its spec has no
 *     {@code shards:} (1..{@value JobSpec#MAX_SHARDS}; the chart's {@code index.shards})
 * @param defaultReplicas the copies each shard of a job is kept as when its spec has no {@code
 *     replicas:} (1..{@value JobSpec#MAX_REPLICAS}; the chart's {@code index.collectionReplicas})
 * @param httpPort the port of the web UI beside gRPC ({@code --http-port}; 0 picks a free one,
 *     {@link #NO_HTTP} serves none)
 */
public record EvalServiceConfig(
    ServerSettings server,
    ServiceFolders folders,
    JobLauncher.Options services,
    EvalExecutorConfig executor,
    int defaultShards,
    int defaultReplicas,
    int httpPort) {
  public static final int DEFAULT_PORT = 50054;

  /** {@link #httpPort} when no web UI is served. */
  public static final int NO_HTTP = -1;

  /** A service without a web UI. */
  public EvalServiceConfig(
      ServerSettings server,
      ServiceFolders folders,
      JobLauncher.Options services,
      EvalExecutorConfig executor,
      int defaultShards,
      int defaultReplicas) {
    this(server, folders, services, executor, defaultShards, defaultReplicas, NO_HTTP);
  }

  /** The same service with its web UI on {@code port} ({@link #NO_HTTP}: none). */
  public EvalServiceConfig withHttpPort(int port) {
    return new EvalServiceConfig(
        server, folders, services, executor, defaultShards, defaultReplicas, port);
  }

  /** A service whose jobs' shards have one copy unless their specs say otherwise. */
  public EvalServiceConfig(
      ServerSettings server,
      ServiceFolders folders,
      JobLauncher.Options services,
      EvalExecutorConfig executor,
      int defaultShards) {
    this(server, folders, services, executor, defaultShards, 1);
  }

  /** A service whose jobs' collections are not split unless their specs say so. */
  public EvalServiceConfig(
      ServerSettings server,
      ServiceFolders folders,
      JobLauncher.Options services,
      EvalExecutorConfig executor) {
    this(server, folders, services, executor, 1);
  }

  /** A service that runs its jobs in its own process. */
  public EvalServiceConfig(
      ServerSettings server, ServiceFolders folders, JobLauncher.Options services) {
    this(server, folders, services, EvalExecutorConfig.INLINE);
  }

  public EvalServiceConfig {
    if (server == null) {
      throw new IllegalArgumentException("server settings are required");
    }
    if (folders == null || folders.stateDirectory() == null) {
      throw new IllegalArgumentException("--state-dir is required");
    }
    if (services == null) {
      throw new IllegalArgumentException("service options are required");
    }
    if (executor == null) {
      throw new IllegalArgumentException("executor settings are required");
    }
    if (defaultShards < 1 || defaultShards > JobSpec.MAX_SHARDS) {
      throw new IllegalArgumentException(
          "--default-shards must be within 1.." + JobSpec.MAX_SHARDS + ", got " + defaultShards);
    }
    if (defaultReplicas < 1 || defaultReplicas > JobSpec.MAX_REPLICAS) {
      throw new IllegalArgumentException(
          "--default-replicas must be within 1.."
              + JobSpec.MAX_REPLICAS
              + ", got "
              + defaultReplicas);
    }
    if (httpPort < NO_HTTP || httpPort > 65535) {
      throw new IllegalArgumentException(
          "--http-port must be -1 (off) or within 0..65535, got " + httpPort);
    }
    if (executor.kubernetes()
        && !executor.datasetsClaim().isBlank()
        && folders.dataRoots().isEmpty()) {
      throw new IllegalArgumentException(
          "--pod-datasets-pvc needs a --data-root: the pods mount the claim at the first one");
    }
    if (services.modelsDirectory() == null) {
      throw new IllegalArgumentException("--models-dir is required");
    }
    if (services.cacheDirectory() == null) {
      throw new IllegalArgumentException("--cache-dir is required");
    }
    if (Files.exists(folders.stateDirectory()) && !Files.isDirectory(folders.stateDirectory())) {
      throw new IllegalArgumentException(
          "--state-dir " + folders.stateDirectory() + " is not a folder");
    }
    if (Files.exists(folders.resultsRoot()) && !Files.isDirectory(folders.resultsRoot())) {
      throw new IllegalArgumentException(
          "--results-root " + folders.resultsRoot() + " is not a folder");
    }
    for (Path root : folders.dataRoots()) {
      if (!Files.isDirectory(root)) {
        throw new IllegalArgumentException("--data-root " + root + " is not a folder");
      }
    }
  }
}
