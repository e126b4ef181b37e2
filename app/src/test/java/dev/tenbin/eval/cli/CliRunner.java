package dev.tenbin.eval.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Runs the {@code tenbin} command line in-process, as {@code main} builds it for the arguments, and
 * captures its output streams.
 */
record CliRunner(int exitCode, String out, String err) {
  static CliRunner run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = TenbinCli.commandLine(args);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new CliRunner(exit, out.toString(), err.toString());
  }
}
