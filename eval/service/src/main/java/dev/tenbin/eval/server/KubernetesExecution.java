package dev.tenbin.eval.server;

import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.report.JobReports;
import dev.tenbin.eval.shard.kubernetes.IndexedJobSettings;
import dev.tenbin.eval.shard.kubernetes.KubernetesJobExecutor;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.BatchV1Api;
import io.kubernetes.client.util.Config;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds the eval service's {@code --executor kubernetes} from its config. */
final class KubernetesExecution {
  private KubernetesExecution() {}

  static JobManager.Executor executor(
      EvalServiceConfig config, JobLauncher launcher, PrintWriter log) {
    EvalExecutorConfig executor = config.executor();
    return new KubernetesJobExecutor(
        new BatchV1Api(client(executor.kubeconfig())),
        settings(config),
        job -> launcher.plan(job.spec(), job.taskSets()),
        directory -> JobReports.write(directory, new PrintWriter(Writer.nullWriter()), log),
        log);
  }

  /** The settings of the service's Jobs: the results claim at the results root, the Secrets. */
  static KubernetesJobExecutor.Settings settings(EvalServiceConfig config) {
    EvalExecutorConfig executor = config.executor();
    List<IndexedJobSettings.Mount> mounts = new ArrayList<>();
    if (!executor.tlsSecret().isBlank()) {
      mounts.add(
          new IndexedJobSettings.Mount(
              "tls",
              IndexedJobSettings.Source.SECRET,
              executor.tlsSecret(),
              EvalExecutorConfig.POD_TLS_DIR.toString()));
    }
    if (!executor.authSecret().isBlank()) {
      mounts.add(
          new IndexedJobSettings.Mount(
              "auth",
              IndexedJobSettings.Source.SECRET,
              executor.authSecret(),
              EvalExecutorConfig.POD_AUTH_DIR.toString()));
    }
    Path firstDataRoot =
        config.folders().dataRoots().isEmpty()
            ? null
            : config.folders().dataRoots().getFirst().toAbsolutePath().normalize();
    if (!executor.datasetsClaim().isBlank()) {
      mounts.add(
          new IndexedJobSettings.Mount(
              "datasets",
              IndexedJobSettings.Source.CLAIM,
              executor.datasetsClaim(),
              firstDataRoot.toString()));
    }
    return new KubernetesJobExecutor.Settings(
        executor.namespace(),
        executor.image(),
        executor.parallelism(),
        executor.retries(),
        executor.ttlSeconds(),
        executor.resultsClaim(),
        config.folders().resultsRoot(),
        executor.resources(),
        executor.serviceAccount(),
        executor.shardArgs(),
        mounts,
        firstDataRoot,
        executor.pollInterval(),
        new IndexedJobSettings.PodHub(executor.hubSecret(), executor.hubEndpoint()));
  }

  private static ApiClient client(Path kubeconfig) {
    try {
      return kubeconfig != null ? Config.fromConfig(kubeconfig.toString()) : Config.defaultClient();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Kubernetes client configuration", e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "--kubeconfig: cannot configure the Kubernetes client: " + e.getMessage(), e);
    }
  }
}
