package dev.tenbin.eval.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

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

  /**
   * The bytes of {@code tenbin export trec JOB --system SYSTEM --task TASK --out FILE}, which must
   * succeed.
   */
  static byte[] trecRun(Path job, String system, String task, Path file) throws IOException {
    CliRunner export =
        run(
            "export",
            "trec",
            job.toString(),
            "--system",
            system,
            "--task",
            task,
            "--out",
            file.toString());
    if (export.exitCode() != 0) {
      throw new AssertionError("export trec exited " + export.exitCode() + ": " + export.err());
    }
    return Files.readAllBytes(file);
  }
}
