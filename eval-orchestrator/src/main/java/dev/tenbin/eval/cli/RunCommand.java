package dev.tenbin.eval.cli;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.job.ConsoleJobProgress;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.JobReports;
import dev.tenbin.eval.job.JobSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tenbin run SPEC --out DIR}: runs a job on the embedded services (or remote ones), storing
 * every finished cell; run again with the same {@code --out} to resume after an interruption.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Run an evaluation job (YAML spec) into an output folder.",
      "Finished cells are never recomputed: rerun the same command to resume after a crash or kill."
    })
public final class RunCommand implements Callable<Integer> {
  /** Exit code when the job finished with failed work items. */
  public static final int EXIT_INCOMPLETE = 3;

  @Parameters(index = "0", paramLabel = "SPEC", description = "Job spec (YAML).")
  Path specFile;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description = "Job folder: results, leaderboards, warehouse.")
  Path out;

  @CommandLine.Mixin ServiceOptions services = new ServiceOptions();

  @Option(
      names = "--progress",
      defaultValue = "auto",
      description =
          "auto (bars on a terminal, lines otherwise), bars, lines or none (default ${DEFAULT-VALUE}).")
  String progress;

  @Option(
      names = "--no-reports",
      description = "Skip the leaderboards and the warehouse at the end.")
  boolean noReports;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    JobSpec job = JobSpec.read(specFile);
    boolean bars =
        switch (progress) {
          case "auto" -> ConsoleJobProgress.interactiveTerminal();
          case "bars" -> true;
          case "lines", "none" -> false;
          default ->
              throw new dev.tenbin.core.InvalidInputException(
                  "--progress",
                  "--progress must be auto, bars, lines or none, got '" + progress + "'");
        };
    JobLauncher launcher = new JobLauncher(services.toOptions());
    JobOutcome outcome;
    try (ConsoleJobProgress listener =
        new ConsoleJobProgress(
            progress.equals("none") ? new PrintWriter(java.io.Writer.nullWriter()) : err, bars)) {
      outcome = launcher.run(job, out, listener, Cancellation.NEVER);
    }
    outcome.failures().forEach(failure -> err.println("tenbin: failed: " + failure));
    if (!noReports) {
      JobReports.write(out, spec.commandLine().getOut(), err);
    }
    err.flush();
    return outcome.succeeded() ? 0 : EXIT_INCOMPLETE;
  }
}
