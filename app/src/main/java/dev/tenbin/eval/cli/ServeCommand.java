package dev.tenbin.eval.cli;

import dev.tenbin.eval.server.EvalServer;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.rerank.server.RerankServer;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Runs one of the services as a standalone gRPC server from the same launcher. */
@Command(
    name = "serve",
    description = "Run a service as a standalone gRPC server: index | encoder | rerank | eval.",
    mixinStandardHelpOptions = true)
public final class ServeCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "SERVICE", description = "index | encoder | rerank | eval")
  String service;

  @Parameters(
      index = "1..*",
      arity = "0..*",
      paramLabel = "OPTION",
      description = "The service's own options (--help).")
  String[] options = new String[0];

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    Object server =
        switch (service) {
          case "index" -> new IndexServer();
          case "rerank" -> new RerankServer();
          case "eval" -> new EvalServer();
          case "encoder" -> new dev.tenbin.encoder.server.EncoderServer();
          default ->
              throw new IllegalArgumentException(
                  "unknown service '" + service + "': expected index, encoder, rerank or eval");
        };
    CommandLine serverCli = new CommandLine(server);
    // The help names the command as it is typed here, not the service's own main.
    serverCli.setCommandName("tenbin serve " + service);
    serverCli.getCommandSpec().versionProvider(new TenbinCli.Version());
    HelpPlaceholders.apply(serverCli);
    serverCli.setOut(spec.commandLine().getOut());
    serverCli.setErr(spec.commandLine().getErr());
    serverCli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("tenbin serve " + service + ": " + TenbinCli.describe(e));
          return TenbinCli.EXIT_USAGE;
        });
    return serverCli.execute(options);
  }
}
