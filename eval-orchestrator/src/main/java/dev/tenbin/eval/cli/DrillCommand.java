package dev.tenbin.eval.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.drill.DrillLog;
import dev.tenbin.eval.drill.DrillResult;
import dev.tenbin.eval.drill.SigtermDrill;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin drill}: fault drills against real processes (signals, kills, overload, bad input),
 * each printing one RELIABILITY.md row. Children are {@code tenbin} JVMs started with this JVM's
 * flags; their logs stay in {@code --work-dir}.
 */
@Command(
    name = "drill",
    mixinStandardHelpOptions = true,
    description = "Fault drills against real service processes; each prints one reliability table row.",
    subcommands = {DrillCommand.Sigterm.class})
public final class DrillCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** Options every drill shares. */
  static final class Common {
    @Option(names = "--work-dir", paramLabel = "DIR",
        description = "Folder for the children's data and logs (default: a new temporary folder, kept).")
    Path workDirectory;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the synthetic data and the fault timing (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print the row as one JSON object on stdout.")
    boolean json;

    Path work(String drill) {
      try {
        if (workDirectory != null) {
          return Files.createDirectories(workDirectory);
        }
        return Files.createTempDirectory("tenbin-drill-" + drill + "-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the drill's work folder", e);
      }
    }

    int report(CommandLine.Model.CommandSpec spec, DrillResult result) {
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode row = new ObjectMapper().createObjectNode();
        row.put("test", result.test());
        row.put("load", result.load());
        row.put("faults", result.faults());
        row.put("result", result.result());
        row.put("passed", result.passed());
        out.println(row);
      } else {
        out.println("| test | load or input | faults injected | result | verdict |");
        out.println("|---|---|---|---|---|");
        out.println(result.markdownRow());
      }
      out.flush();
      return result.passed() ? 0 : TenbinCli.EXIT_FAILURE;
    }
  }

  /** {@code tenbin drill sigterm-encode}. */
  @Command(name = "sigterm-encode", mixinStandardHelpOptions = true,
      description = "SIGTERM `tenbin eval --retriever dense:MODEL` at random points of its encode; count crashes.")
  static final class Sigterm implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @Option(names = "--model", defaultValue = "all-minilm-l6-v2", description = "Dense model (default ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--repeat", defaultValue = "10", description = "Runs (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--documents", defaultValue = "600", description = "Synthetic documents per run (default ${DEFAULT-VALUE}).")
    int documents;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
      if (repeat < 1 || documents < 10) {
        throw new IllegalArgumentException("--repeat must be at least 1 and --documents at least 10");
      }
      Path work = common.work("sigterm-encode");
      DrillLog log = DrillLog.printingTo(spec.commandLine().getErr());
      log.line("work folder " + work);
      return common.report(spec, SigtermDrill.run(work, model, repeat, documents, common.seed, log));
    }
  }
}
