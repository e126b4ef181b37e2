package dev.tenbin.drill;

import dev.tenbin.eval.cli.TenbinCli;
import picocli.CommandLine;

/**
 * {@code tenbin drill}: the launcher runs this main from a checkout ({@code ./tenbin drill ...});
 * the product jar and image do not contain it.
 */
public final class DrillCli {
  private DrillCli() {}

  /** The {@code tenbin drill} command line, with Tenbin's error handling. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new DrillCommand());
    cli.setCommandName("tenbin drill");
    return TenbinCli.withErrorHandling(cli);
  }

  public static void main(String[] args) {
    TenbinCli.prepareConsole(false);
    System.exit(commandLine().execute(args));
  }
}
