package dev.tenbin.rpc;

import picocli.CommandLine;

/**
 * The {@code main} of a service's process: parses the command line into {@code command} and runs
 * it; an exception while it runs is printed as {@code <service>: <message>} and exits with 2.
 */
public final class ServerMain {
  private ServerMain() {}

  /** Runs {@code command} with {@code args} and exits the JVM with its exit code. */
  public static void exit(String serviceName, Object command, String... args) {
    System.exit(execute(serviceName, command, args));
  }

  /** Runs {@code command} with {@code args}; its exit code (2 when it threw). */
  public static int execute(String serviceName, Object command, String... args) {
    CommandLine cli = new CommandLine(command);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println(serviceName + ": " + e.getMessage());
          return 2;
        });
    return cli.execute(args);
  }
}
