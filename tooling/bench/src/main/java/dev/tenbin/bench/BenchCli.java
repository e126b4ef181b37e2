package dev.tenbin.bench;

import dev.tenbin.eval.cli.TenbinCli;
import picocli.CommandLine;

/**
 * {@code tenbin bench}: the launcher runs this main from a checkout ({@code ./tenbin bench ...});
 * the product jar and image do not contain it.
 */
public final class BenchCli {
  private BenchCli() {}

  /** The {@code tenbin bench} command line, with Tenbin's error handling. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new BenchCommand());
    cli.setCommandName("tenbin bench");
    return TenbinCli.withErrorHandling(cli);
  }

  public static void main(String[] args) {
    TenbinCli.prepareConsole(false);
    System.exit(commandLine().execute(args));
  }
}
