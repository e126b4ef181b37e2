package dev.tenbin.rerank;

import dev.tenbin.rerank.grpc.RerankGrpcService;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerOptions;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs the rerank service: {@code tenbin.rerank.v1} over gRPC. */
@Command(
    name = "rerank-service",
    mixinStandardHelpOptions = true,
    description = "Re-orders fixed candidate sets with cross-encoders and retrieval models.")
public final class RerankServer implements Callable<Integer> {
  @Mixin ServerOptions serverOptions = new ServerOptions();

  @Option(
      names = "--max-pairs-per-request",
      defaultValue = "${env:TENBIN_RERANK_MAX_PAIRS:-1000}",
      description = "Largest number of candidates in one rerank request (default ${DEFAULT-VALUE}).")
  int maxPairs;

  public RerankServiceConfig config() {
    return new RerankServiceConfig(serverOptions.toSettings(RerankServiceConfig.DEFAULT_PORT), maxPairs);
  }

  @Override
  public Integer call() throws Exception {
    RerankServiceConfig config = config();
    GrpcServerHost host =
        GrpcServerHost.start(config.server(), List.of(new RerankGrpcService(config)))
            .stopOnSignal("rerank-service");
    System.err.printf(
        "rerank-service listening on %s:%d (metrics port %d)%n",
        config.server().host(), host.port(), host.metricsPort());
    host.blockUntilShutdown();
    return 0;
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new RerankServer());
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("rerank-service: " + e.getMessage());
          return 2;
        });
    System.exit(cli.execute(args));
  }
}
