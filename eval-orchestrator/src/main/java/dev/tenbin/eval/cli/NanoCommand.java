package dev.tenbin.eval.cli;

import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.BeirDatasetReader;
import dev.tenbin.eval.nano.NanoSetBuilder;
import dev.tenbin.eval.report.ReportWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin nano build}: a Nano-set (≤ 200 queries, ≤ 10,000 documents) of a BEIR collection.
 */
@Command(
    name = "nano",
    mixinStandardHelpOptions = true,
    description = "Nano-sets: small, fixed evaluation sets built from a BEIR collection.",
    subcommands = {NanoCommand.Build.class})
public final class NanoCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "build",
      mixinStandardHelpOptions = true,
      description = "Build a Nano-set into a new folder.")
  static final class Build implements Callable<Integer> {
    @Option(names = "--dataset", required = true, paramLabel = "DIR")
    Path dataset;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "DIR",
        description = "New or empty folder for the Nano-set.")
    Path out;

    @Option(
        names = "--seed",
        defaultValue = "42",
        description = "Query sampling seed (default ${DEFAULT-VALUE}).")
    long seed;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      ReportWriter.prepare(out);
      BeirDataset data = BeirDatasetReader.read(dataset);
      var summary = new NanoSetBuilder().build(data, seed, out);
      spec.commandLine()
          .getErr()
          .printf(
              "tenbin: Nano-set of %s: %d queries, %d documents (%d positives, %d hard negatives, %d filler) -> %s%n",
              data.name(),
              summary.queries(),
              summary.documents(),
              summary.positives(),
              summary.hardNegatives(),
              summary.filler(),
              out);
      return 0;
    }
  }
}
