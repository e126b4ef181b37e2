package dev.tenbin.eval;

import dev.tenbin.eval.grpc.EvalGrpcService;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobManager;
import dev.tenbin.eval.job.JobReports;
import dev.tenbin.eval.job.ServiceFolders;
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
      "Clients send task sets inline (tenbin submit does). The service reads local datasets only under --data-root"
          + " folders and writes job folders only under --results-root; anything else is PERMISSION_DENIED."
    })
public final class EvalServer implements Callable<Integer> {
  public static final int DEFAULT_PORT = 50054;
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

  @Override
  public Integer call() throws Exception {
    var settings = serverOptions.toSettings(DEFAULT_PORT);
    JobLauncher launcher = new JobLauncher(services.toOptions());
    PrintWriter reportLog = new PrintWriter(System.err, true);
    ServiceFolders folders = folders();
    JobManager jobs =
        JobManager.open(
            folders,
            (job, listener, cancellation) -> {
              var outcome = launcher.run(job.spec(), job.taskSets(), job.directory(), listener, cancellation);
              if (!outcome.cancelled()) {
                JobReports.write(job.directory(), new PrintWriter(Writer.nullWriter()), reportLog);
              }
              return outcome;
            });
    log.info(
        "eval-service state {}, results root {}, data roots {}",
        folders.stateDirectory(),
        jobs.admission().resultsRoot(),
        jobs.admission().dataRoots().isEmpty() ? "none (local datasets refused; hub datasets only)" : jobs.admission().dataRoots());
    // On SIGTERM the server stops first, then the running job stops at its next check and stays
    // running in the table (to resume at the next start), and only then do the embedded services
    // it calls close.
    dev.tenbin.core.OrderedShutdown.register(dev.tenbin.core.OrderedShutdown.Stage.JOBS, "eval-service jobs", jobs);
    GrpcServerHost host;
    try {
      host = GrpcServerHost.start(settings, List.of(new EvalGrpcService(jobs))).stopOnSignal("eval-service");
    } catch (RuntimeException e) {
      jobs.close();
      throw e;
    }
    System.err.printf(
        "eval-service listening on %s:%d (metrics port %d)%n",
        settings.host(), host.port(), host.metricsPort());
    host.blockUntilShutdown();
    jobs.close();
    return 0;
  }
}
