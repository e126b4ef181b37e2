package dev.tenbin.eval;

import dev.tenbin.eval.grpc.EvalGrpcService;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerOptions;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobManager;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Runs the orchestrator as a service: {@code tenbin.eval.v1} over gRPC. */
@Command(
    name = "eval-service",
    mixinStandardHelpOptions = true,
    description = "Serves evaluation jobs over gRPC (tenbin.eval.v1).")
public final class EvalServer implements Callable<Integer> {
  public static final int DEFAULT_PORT = 50054;

  @Mixin ServerOptions serverOptions = new ServerOptions();

  @Mixin dev.tenbin.eval.cli.ServiceOptions services = new dev.tenbin.eval.cli.ServiceOptions();

  @Override
  public Integer call() throws Exception {
    var settings = serverOptions.toSettings(DEFAULT_PORT);
    JobLauncher launcher = new JobLauncher(services.toOptions());
    java.io.PrintWriter log = new java.io.PrintWriter(System.err, true);
    JobManager jobs =
        new JobManager(
            (spec, directory, listener, cancellation) -> {
              var outcome = launcher.run(spec, directory, listener, cancellation);
              if (!outcome.cancelled()) {
                dev.tenbin.eval.job.JobReports.write(directory, new java.io.PrintWriter(java.io.Writer.nullWriter()), log);
              }
              return outcome;
            },
            Path.of(""));
    GrpcServerHost host =
        GrpcServerHost.start(settings, List.of(new EvalGrpcService(jobs))).stopOnSignal("eval-service");
    System.err.printf(
        "eval-service listening on %s:%d (metrics port %d)%n",
        settings.host(), host.port(), host.metricsPort());
    host.blockUntilShutdown();
    jobs.close();
    return 0;
  }
}
