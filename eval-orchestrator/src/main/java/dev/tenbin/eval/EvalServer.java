package dev.tenbin.eval;

import dev.tenbin.eval.grpc.EvalGrpcService;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobReports;
import dev.tenbin.eval.job.ServiceFolders;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerOptions;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
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

  @Mixin dev.tenbin.eval.cli.ServiceOptions services = new dev.tenbin.eval.cli.ServiceOptions();

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
        serverOptions.toSettings(EvalServiceConfig.DEFAULT_PORT), folders(), services.toOptions());
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
    JobLauncher launcher = new JobLauncher(config.services());
    PrintWriter reportLog =
        new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
    JobManager jobs =
        JobManager.open(
            config.folders(),
            (job, listener, cancellation) -> {
              var outcome =
                  launcher.run(job.spec(), job.taskSets(), job.directory(), listener, cancellation);
              if (!outcome.cancelled()) {
                JobReports.write(job.directory(), new PrintWriter(Writer.nullWriter()), reportLog);
              }
              return outcome;
            });
    log.info(
        "eval-service state {}, results root {}, data roots {}",
        config.folders().stateDirectory(),
        jobs.admission().resultsRoot(),
        jobs.admission().dataRoots().isEmpty()
            ? "none (local datasets refused; hub datasets only)"
            : jobs.admission().dataRoots());
    try {
      GrpcServerHost host =
          GrpcServerHost.start(config.server(), List.of(new EvalGrpcService(jobs))).owning(jobs);
      return new Running(host, jobs);
    } catch (RuntimeException e) {
      jobs.close();
      throw e;
    }
  }

  /**
   * Serves until SIGTERM/SIGINT: the server stops first, then the running job stops at its next
   * check and stays running in the table (to resume at the next start), and only then do the
   * embedded services it calls close.
   */
  @Override
  public Integer call() throws Exception {
    EvalServiceConfig config = config();
    try (Running running = start(config)) {
      running.host().stopOnSignal("eval-service");
      System.err.printf(
          "eval-service listening on %s:%d (metrics port %d)%n",
          config.server().host(), running.host().port(), running.host().metricsPort());
      running.host().blockUntilShutdown();
    }
    return 0;
  }
}
