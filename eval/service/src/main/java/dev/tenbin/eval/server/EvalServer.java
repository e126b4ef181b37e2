package dev.tenbin.eval.server;

import dev.tenbin.eval.grpc.EvalGrpcService;
import dev.tenbin.eval.job.JobFileDigests;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobSpec;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.eval.report.JobReports;
import dev.tenbin.eval.web.EvalWebUi;
import dev.tenbin.eval.web.ImportPages;
import dev.tenbin.eval.web.WarehousePages;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerOptions;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs the orchestrator as a service: {@code tenbin.eval.v1} over gRPC, with a durable job table
 * under {@code --state-dir}, job folders only under {@code --results-root} and local datasets only
 * under {@code --data-root}.
 */
@Command(
    name = "eval-service",
    mixinStandardHelpOptions = true,
    description = {
      "Serves evaluation jobs over gRPC (tenbin.eval.v1).",
      "Jobs survive restarts: they live in a job table under --state-dir, and a job that was queued or running when the"
          + " service stopped (or was killed) resumes when it starts again; finished cells are never recomputed.",
      "Clients send task sets inline (tenbin job submit does). The service reads local datasets only under --data-root"
          + " folders and writes job folders only under --results-root; anything else is PERMISSION_DENIED."
    })
public final class EvalServer implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(EvalServer.class);

  @Mixin ServerOptions serverOptions = new ServerOptions();

  @Mixin dev.tenbin.eval.job.ServiceOptions services = new dev.tenbin.eval.job.ServiceOptions();

  @Option(
      names = "--state-dir",
      defaultValue = "${env:TENBIN_EVAL_STATE_DIR:-.tenbin/eval-service}",
      paramLabel = "DIR",
      description = {
        "The service's own folder: the job table (jobs/<id>/job.json and events.jsonl) and a lock that keeps a second",
        "service out. Env TENBIN_EVAL_STATE_DIR (default ${DEFAULT-VALUE})."
      })
  Path stateDirectory;

  @Option(
      names = "--results-root",
      defaultValue = "${env:TENBIN_EVAL_RESULTS_ROOT}",
      paramLabel = "DIR",
      description = {
        "Job folders are created only under this folder; a job's output_dir is relative to it (an absolute one must lie",
        "inside). Created when missing. Env TENBIN_EVAL_RESULTS_ROOT (default <state-dir>/results)."
      })
  Path resultsRoot;

  @Option(
      names = "--data-root",
      paramLabel = "DIR",
      split = "${sys:path.separator}",
      defaultValue = "${env:TENBIN_EVAL_DATA_ROOTS}",
      description = {
        "A folder jobs may read local datasets (BEIR folders) from; repeat for several. Each must exist. Env",
        "TENBIN_EVAL_DATA_ROOTS (folders separated by '${sys:path.separator}'). Default: none, so local dataset paths are",
        "refused and only hub datasets (downloaded into --cache-dir) can be used."
      })
  List<Path> dataRoots = new ArrayList<>();

  @Option(
      names = "--executor",
      defaultValue = "${env:TENBIN_EVAL_EXECUTOR:-inline}",
      paramLabel = "EXECUTOR",
      description = {
        "inline: jobs run in this process, one at a time. kubernetes: each job runs as one Indexed Job of --parallelism",
        "shards (pods running tenbin run --shard I/K into the job folder on the shared results volume, --results-pvc);",
        "this service plans, follows and merges it; cancelling a job deletes its Job, a restart follows it again (env",
        "TENBIN_EVAL_EXECUTOR; default ${DEFAULT-VALUE})."
      })
  String executor;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      defaultValue = "${env:TENBIN_NAMESPACE:-default}",
      description =
          "kubernetes: the Jobs' namespace (env TENBIN_NAMESPACE; default ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--parallelism",
      paramLabel = "K",
      defaultValue = "${env:TENBIN_EVAL_PARALLELISM:-2}",
      description = "kubernetes: shards of each job, all run at once (default ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--retries",
      paramLabel = "N",
      defaultValue = "1",
      description = "kubernetes: backoffLimitPerIndex of each shard (default ${DEFAULT-VALUE}).")
  int retries;

  @Option(
      names = "--image",
      paramLabel = "IMAGE",
      defaultValue = "${env:TENBIN_EVAL_SHARD_IMAGE}",
      description = "kubernetes: the Tenbin image of the pods (env TENBIN_EVAL_SHARD_IMAGE).")
  String image;

  @Option(
      names = "--results-pvc",
      paramLabel = "CLAIM",
      defaultValue = "${env:TENBIN_EVAL_RESULTS_PVC}",
      description = {
        "kubernetes: the ReadWriteMany claim mounted here at --results-root; the pods mount it at the same path",
        "(env TENBIN_EVAL_RESULTS_PVC)."
      })
  String resultsPvc;

  @Option(
      names = "--ttl-seconds",
      paramLabel = "N",
      defaultValue = "86400",
      description = "kubernetes: ttlSecondsAfterFinished of the Jobs (default ${DEFAULT-VALUE}).")
  int ttlSeconds;

  @Option(
      names = "--pod-resource",
      paramLabel = "RESOURCE",
      description =
          "kubernetes: NAME=QUANTITY, a request and limit of each pod, e.g. cpu=4, memory=16Gi (repeatable).")
  java.util.Map<String, String> podResources = new java.util.LinkedHashMap<>();

  @Option(
      names = "--pod-service-account",
      paramLabel = "NAME",
      defaultValue = "",
      description = "kubernetes: the pods' service account (default: the namespace's default).")
  String podServiceAccount;

  @Option(
      names = "--pod-tls-secret",
      paramLabel = "SECRET",
      defaultValue = "${env:TENBIN_EVAL_POD_TLS_SECRET}",
      description = {
        "kubernetes: the Secret holding the --service-tls-* files; the pods mount it at /etc/tenbin/tls and get the",
        "same flags. Required when this service uses such files (env TENBIN_EVAL_POD_TLS_SECRET)."
      })
  String podTlsSecret;

  @Option(
      names = "--pod-auth-secret",
      paramLabel = "SECRET",
      defaultValue = "${env:TENBIN_EVAL_POD_AUTH_SECRET}",
      description = {
        "kubernetes: the Secret holding the --service-auth-token-file; the pods mount it at /etc/tenbin/auth.",
        "Required when this service sends a token (env TENBIN_EVAL_POD_AUTH_SECRET)."
      })
  String podAuthSecret;

  @Option(
      names = "--pod-datasets-pvc",
      paramLabel = "CLAIM",
      defaultValue = "${env:TENBIN_EVAL_POD_DATASETS_PVC}",
      description = {
        "kubernetes: the claim holding the data root; the pods mount it read-only at the first --data-root (env",
        "TENBIN_EVAL_POD_DATASETS_PVC)."
      })
  String podDatasetsPvc;

  @Option(
      names = "--pod-hub-secret",
      paramLabel = "SECRET",
      defaultValue = "${env:TENBIN_EVAL_POD_HUB_SECRET}",
      description = {
        "kubernetes: a Secret whose key 'token' becomes the pods' HF_TOKEN, for hub task sets (env",
        "TENBIN_EVAL_POD_HUB_SECRET); the token never goes into the Job itself."
      })
  String podHubSecret;

  @Option(
      names = "--pod-hub-endpoint",
      paramLabel = "URL",
      defaultValue = "${env:HF_ENDPOINT}",
      description =
          "kubernetes: the pods' HF_ENDPOINT, a hub mirror (default: this service's HF_ENDPOINT).")
  String podHubEndpoint;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "kubernetes: the client configuration (default: the pod's service account, or ~/.kube/config).")
  Path kubeconfig;

  @Option(
      names = "--default-shards",
      paramLabel = "K",
      defaultValue = "${env:TENBIN_EVAL_DEFAULT_SHARDS:-1}",
      description = {
        "The shards each BM25 and dense collection of a job is split into when its spec has no shards: (1.."
            + JobSpec.MAX_SHARDS
            + ";",
        "the rankings are the same; env TENBIN_EVAL_DEFAULT_SHARDS; default ${DEFAULT-VALUE})."
      })
  int defaultShards;

  @Option(
      names = "--default-replicas",
      paramLabel = "R",
      defaultValue = "${env:TENBIN_EVAL_DEFAULT_REPLICAS:-1}",
      description = {
        "The copies each shard of a job is kept as, on distinct index pods, when its spec has no"
            + " replicas: (1.."
            + JobSpec.MAX_REPLICAS
            + ";",
        "a copy whose pod is lost is routed around; env TENBIN_EVAL_DEFAULT_REPLICAS; default"
            + " ${DEFAULT-VALUE})."
      })
  int defaultReplicas;

  @Option(
      names = "--poll-seconds",
      defaultValue = "5",
      paramLabel = "S",
      description = "kubernetes: how often a Job's status is read (default ${DEFAULT-VALUE}).")
  double pollSeconds;

  @Option(
      names = "--http-port",
      defaultValue = "${env:TENBIN_HTTP_PORT:--1}",
      description = {
        "Also serve the web UI (jobs, their files and archives, leaderboard) and GET /health over HTTP on this port of",
        "the same address, with the gRPC side's tokens (browsers sign in at /login), limits and TLS (HTTPS when",
        "--tls-cert is given); 0 picks a free port, -1 serves none (env TENBIN_HTTP_PORT; default ${DEFAULT-VALUE})."
      })
  int httpPort;

  /** The executor options, checked. */
  EvalExecutorConfig executorConfig() {
    return new EvalExecutorConfig(
        executor,
        namespace,
        parallelism,
        retries,
        image,
        resultsPvc,
        ttlSeconds,
        podResources,
        podServiceAccount,
        podTlsSecret,
        podAuthSecret,
        podDatasetsPvc,
        kubeconfig,
        java.time.Duration.ofMillis((long) (pollSeconds * 1000)),
        services.toShardArgs(EvalExecutorConfig.POD_TLS_DIR, EvalExecutorConfig.POD_AUTH_DIR),
        services.hasTlsFiles(),
        services.hasTokenFile(),
        podHubSecret,
        podHubEndpoint);
  }

  /** The folders from the options, defaults applied. */
  ServiceFolders folders() {
    Path state = stateDirectory.toAbsolutePath().normalize();
    return new ServiceFolders(
        state,
        resultsRoot == null ? state.resolve("results") : resultsRoot.toAbsolutePath().normalize(),
        dataRoots == null ? List.of() : dataRoots);
  }

  /** The flags and environment as one checked config; a bad value names its flag. */
  public EvalServiceConfig config() {
    return new EvalServiceConfig(
        serverOptions.toSettings(EvalServiceConfig.DEFAULT_PORT),
        folders(),
        services.toOptions(),
        executorConfig(),
        defaultShards,
        defaultReplicas,
        httpPort);
  }

  /**
   * A started eval service. The host owns the job manager: closing stops the server first, then the
   * running job at its next check (it stays running in the table, to resume at the next start), and
   * releases the job table.
   */
  public record Running(GrpcServerHost host, JobManager jobs) implements AutoCloseable {
    @Override
    public void close() {
      host.close();
    }
  }

  /** Opens the job table of {@code config} and starts its network server. */
  public static Running start(EvalServiceConfig config) {
    // Every option is checked before anything is created on disk.
    config.server().security().checkBind(config.server().host());
    JobLauncher launcher = new JobLauncher(config.services());
    PrintWriter reportLog = dev.tenbin.rpc.ProcessLogging.lineWriter(log);
    JobManager.Executor executor =
        config.executor().kubernetes()
            ? KubernetesExecution.executor(config, launcher, reportLog)
            : (job, listener, cancellation) -> {
              var outcome =
                  launcher.run(job.spec(), job.taskSets(), job.directory(), listener, cancellation);
              if (!outcome.cancelled()) {
                JobReports.write(job.directory(), new PrintWriter(Writer.nullWriter()), reportLog);
              }
              return outcome;
            };
    JobManager jobs =
        JobManager.open(
            config.folders(),
            executor,
            new dev.tenbin.eval.job.ServiceModels(launcher),
            config.defaultShards(),
            config.defaultReplicas());
    log.info(
        "eval-service state {}, results root {}, data roots {}",
        config.folders().stateDirectory(),
        jobs.admission().resultsRoot(),
        jobs.admission().dataRoots().isEmpty()
            ? "none (local datasets refused; hub datasets only)"
            : jobs.admission().dataRoots());
    return serve(config, jobs);
  }

  /**
   * Serves {@code jobs} (opened from {@code config}'s folders) over gRPC, and over HTTP when {@code
   * config} names an HTTP port; the host owns the job manager. Tests hand in a job manager whose
   * executor is their own.
   */
  public static Running serve(EvalServiceConfig config, JobManager jobs) {
    boolean http = config.httpPort() != EvalServiceConfig.NO_HTTP;
    JobFileDigests digests = new JobFileDigests();
    GrpcServerHost host =
        GrpcServerHost.startOwning(
            config.server(), jobs, j -> List.of(new EvalGrpcService(j, digests)), !http);
    if (http) {
      try {
        boolean tokens = config.server().security().tokens();
        EvalWebUi ui =
            new EvalWebUi(
                jobs,
                new WarehousePages(jobs, config.folders().stateDirectory(), tokens),
                tokens,
                digests);
        List<dev.tenbin.rpc.HttpEndpoint.WebRoute> routes = new java.util.ArrayList<>(ui.routes());
        routes.addAll(new ImportPages(jobs, tokens).routes());
        host.serveHttp(config.httpPort(), List.of(), routes);
      } catch (RuntimeException e) {
        host.close();
        throw e;
      }
      host.markServing();
    }
    JobMetrics.bind(jobs, host.registry());
    return new Running(host, jobs);
  }

  /**
   * Serves until SIGTERM/SIGINT: the server stops first, then the running job stops at its next
   * check and stays running in the table (to resume at the next start), and only then do the
   * embedded services it calls close.
   */
  @Override
  public Integer call() throws Exception {
    dev.tenbin.rpc.ProcessLogging.use(serverOptions.logFormat());
    EvalServiceConfig config = config();
    try (Running running = start(config)) {
      running.host().serveUntilShutdown("eval-service", "HTTP port " + running.host().httpPort());
    }
    return 0;
  }
}
