package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.posir.PerturbationBuilder;
import dev.tenbin.eval.posir.PerturbationReport;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tenbin posir}: the positional perturbation test (build the tasks, report the result). */
@Command(
    name = "posir",
    mixinStandardHelpOptions = true,
    description =
        "Positional perturbation: the same questions and gold passages, the gold placed at chosen"
            + " relative positions among distractors, so position is the only variable.",
    subcommands = {PosirCommand.Build.class, PosirCommand.Report.class})
public final class PosirCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** {@code tenbin posir build}. */
  @Command(
      name = "build",
      mixinStandardHelpOptions = true,
      description = {
        "Build one BEIR task (with qrels/spans.tsv) per position from a span-annotated passage"
            + " collection, and posir.json recording the draw.",
        "The passages holding spans are split with the seed: one half keeps its questions (gold),"
            + " the other half only serves as distractors, so no distractor answers an evaluated"
            + " question. Each gold passage becomes one document: its K distractors (drawn once, the"
            + " same order at every position) with the gold at slot round(p*K), joined by a newline."
      })
  static final class Build implements Callable<Integer> {
    @Option(names = "--dataset", required = true, paramLabel = "DIR")
    Path dataset;

    @Option(
        names = "--positions",
        defaultValue = "0,0.25,0.5,0.75,1",
        split = ",",
        paramLabel = "P",
        description = "Relative positions of the gold passage, 0..1 (default ${DEFAULT-VALUE}).")
    List<Double> positions;

    @Option(
        names = "--distractors",
        defaultValue = "4",
        paramLabel = "K",
        description = "Distractor passages per document (default ${DEFAULT-VALUE}).")
    int distractors;

    @Option(names = "--seed", defaultValue = "13", description = "Default ${DEFAULT-VALUE}.")
    long seed;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "DIR",
        description = "New or empty folder.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      BeirDataset data = BeirDatasetReader.read(dataset);
      var built = PerturbationBuilder.build(data, dataset, positions, distractors, seed, out);
      PrintWriter err = spec.commandLine().getErr();
      err.printf(
          "tenbin: %d position tasks of %d questions and %d documents (K = %d, seed %d) -> %s%n",
          built.folders().size(), built.queries(), built.documents(), distractors, seed, out);
      for (Path folder : built.folders()) {
        spec.commandLine().getOut().println(folder);
      }
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  /** {@code tenbin posir report}. */
  @Command(
      name = "report",
      mixinStandardHelpOptions = true,
      description =
          "nDCG@10 (and recall@100) per system at each position and the PSI across positions, from"
              + " the `tenbin eval --json` outputs of the position folders.")
  static final class Report implements Callable<Integer> {
    @Option(
        names = "--built",
        required = true,
        paramLabel = "DIR",
        description = "The folder `tenbin posir build` wrote.")
    Path built;

    @Parameters(arity = "1..*", paramLabel = "EVAL_JSON", description = "eval --json outputs.")
    List<Path> outputs = new ArrayList<>();

    @Option(names = "--json")
    boolean json;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (!java.nio.file.Files.isRegularFile(built.resolve(PerturbationBuilder.MANIFEST))) {
        throw new InvalidInputException(
            "--built", built + " holds no " + PerturbationBuilder.MANIFEST + " (see posir build)");
      }
      PerturbationReport report = PerturbationReport.read(built, outputs);
      PrintWriter out = spec.commandLine().getOut();
      out.print(json ? report.toJson() + System.lineSeparator() : report.toTable());
      out.flush();
      return 0;
    }
  }
}
