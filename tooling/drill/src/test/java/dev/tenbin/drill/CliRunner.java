package dev.tenbin.drill;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;

/**
 * Runs {@code tenbin drill ...} in-process, given as a user types it after {@code tenbin} (the
 * first argument is "drill"), and captures its output streams.
 */
record CliRunner(int exitCode, String out, String err) {
  static CliRunner run(String... args) {
    if (args.length == 0 || !args[0].equals("drill")) {
      throw new IllegalArgumentException("a tenbin drill command line starts with \"drill\"");
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cli = DrillCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(rest);
    return new CliRunner(exit, out.toString(), err.toString());
  }
}
