package dev.tenbin.drill;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.cli.TenbinCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
    description =
        "Fault drills against real service processes; each prints one reliability table row.",
    subcommands = {
      DrillCommand.Sigterm.class,
      DrillCommand.Cancel.class,
      DrillCommand.LongId.class,
      DrillCommand.KillRestart.class,
      DrillCommand.Drain.class,
      DrillCommand.Overload.class,
      DrillCommand.Soak.class
    })
public final class DrillCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** Options every drill shares. */
  static final class Common {
    @Option(
        names = "--work-dir",
        paramLabel = "DIR",
        description =
            "Folder for the children's data and logs (default: a new temporary folder, kept).")
    Path workDirectory;

    @Option(
        names = "--seed",
        defaultValue = "42",
        description = "Seed of the synthetic data and the fault timing (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print the row as one JSON object on stdout.")
    boolean json;

    /** The drill's work folder and its progress log on stderr, the folder named first. */
    Started start(CommandLine.Model.CommandSpec spec, String drill) {
      Path work = work(drill);
      DrillLog log = DrillLog.printingTo(spec.commandLine().getErr());
      log.line("work folder " + work);
      return new Started(work, log);
    }

    private Path work(String drill) {
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
      return report(spec, result, null);
    }

    /**
     * As {@link #report(CommandLine.Model.CommandSpec, DrillResult)}; --json adds {@code details}.
     */
    int report(CommandLine.Model.CommandSpec spec, DrillResult result, ObjectNode details) {
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode row = new ObjectMapper().createObjectNode();
        row.put("test", result.test());
        row.put("load", result.load());
        row.put("faults", result.faults());
        row.put("result", result.result());
        row.put("passed", result.passed());
        if (details != null) {
          row.set("details", details);
        }
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

  /** A started drill: its work folder and progress log. */
  record Started(Path work, DrillLog log) {}

  /** The dense model a drill encodes with. */
  static final class DenseModel {
    @Option(
        names = "--model",
        defaultValue = "all-minilm-l6-v2",
        description = "Dense model (default ${DEFAULT-VALUE}).")
    String id;
  }

  /** {@code tenbin drill sigterm-encode}. */
  @Command(
      name = "sigterm-encode",
      mixinStandardHelpOptions = true,
      description =
          "SIGTERM `tenbin eval --retriever dense:MODEL` at random points of its encode; count crashes.")
  static final class Sigterm implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @CommandLine.Mixin DenseModel model = new DenseModel();

    @Option(
        names = "--repeat",
        defaultValue = "10",
        description = "Runs (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(
        names = "--documents",
        defaultValue = "600",
        description = "Synthetic documents per run (default ${DEFAULT-VALUE}).")
    int documents;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
      if (repeat < 1 || documents < 10) {
        throw new IllegalArgumentException(
            "--repeat must be at least 1 and --documents at least 10");
      }
      Started started = common.start(spec, "sigterm-encode");
      return common.report(
          spec,
          SigtermDrill.run(
              started.work(), model.id, repeat, documents, common.seed, started.log()));
    }
  }

  /** {@code tenbin drill cancel-encode}. */
  @Command(
      name = "cancel-encode",
      mixinStandardHelpOptions = true,
      description =
          "Cancel jobs of a `tenbin serve eval` while its embedded encoder runs a dense model; the service must stay up.")
  static final class Cancel implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @CommandLine.Mixin DenseModel model = new DenseModel();

    @Option(
        names = "--repeat",
        defaultValue = "10",
        description = "Jobs submitted and cancelled (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(
        names = "--documents",
        defaultValue = "600",
        description = "Synthetic documents per job (default ${DEFAULT-VALUE}).")
    int documents;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
      if (repeat < 1 || documents < 10) {
        throw new IllegalArgumentException(
            "--repeat must be at least 1 and --documents at least 10");
      }
      Started started = common.start(spec, "cancel-encode");
      try {
        return common.report(
            spec,
            CancelDrill.run(
                started.work(), model.id, repeat, documents, common.seed, started.log()));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(
            "cannot prepare the drill's data in " + started.work(), e);
      }
    }
  }

  /** {@code tenbin drill long-id-ingest}. */
  @Command(
      name = "long-id-ingest",
      mixinStandardHelpOptions = true,
      description =
          "Ingest a batch with a valid document and a 40,000-character id into `tenbin serve index`; the collection must stay whole.")
  static final class LongId implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      Started started = common.start(spec, "long-id-ingest");
      return common.report(spec, LongIdDrill.run(started.work(), started.log()));
    }
  }

  /** {@code tenbin drill kill-restart --service S}. */
  @Command(
      name = "kill-restart",
      mixinStandardHelpOptions = true,
      description =
          "Run the four services as processes, kill -9 one of them mid-job and restart it; the job must complete with no cell lost or computed twice.")
  static final class KillRestart implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @Option(names = "--service", required = true, description = "index, encoder, rerank or eval.")
    String service;

    @CommandLine.Mixin DenseModel model = new DenseModel();

    @Option(
        names = "--documents",
        defaultValue = "400",
        description = "Synthetic documents (default ${DEFAULT-VALUE}).")
    int documents;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      TenbinService target = TenbinService.parse(service, "--service");
      Started started = common.start(spec, "kill-restart-" + target.label());
      return common.report(
          spec,
          KillRestartDrill.run(
              started.work(), target, model.id, documents, common.seed, started.log()));
    }
  }

  /** {@code tenbin drill drain}. */
  @Command(
      name = "drain",
      mixinStandardHelpOptions = true,
      description =
          "Run the four services as processes and, --rounds times, SIGTERM a random one at a"
              + " random point of a running job (a graceful stop, as a rolling update sends) and"
              + " restart it; every job must succeed with no cell lost or computed twice.")
  static final class Drain implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @CommandLine.Mixin DenseModel model = new DenseModel();

    @Option(
        names = "--rounds",
        defaultValue = "20",
        description = "Jobs, each with one SIGTERM and restart (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
        names = "--documents",
        defaultValue = "300",
        description = "Synthetic documents of each round's dataset (default ${DEFAULT-VALUE}).")
    int documents;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (rounds < 1 || documents < 10) {
        throw new IllegalArgumentException(
            "--rounds must be at least 1 and --documents at least 10");
      }
      Started started = common.start(spec, "drain");
      return common.report(
          spec,
          DrainDrill.run(started.work(), model.id, rounds, documents, common.seed, started.log()));
    }
  }

  /** {@code tenbin drill overload}. */
  @Command(
      name = "overload",
      mixinStandardHelpOptions = true,
      description =
          "Offer a `tenbin serve encoder` several times its measured capacity; it must refuse quickly, stay bounded and recover.")
  static final class Overload implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @CommandLine.Mixin DenseModel model = new DenseModel();

    @Option(
        names = "--factor",
        defaultValue = "4",
        description = "Offered load over measured capacity (default ${DEFAULT-VALUE}).")
    double factor;

    @Option(
        names = "--seconds",
        defaultValue = "60",
        description = "Length of the overload (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(
        names = "--heap",
        defaultValue = "1g",
        description = "The encoder's -Xmx (default ${DEFAULT-VALUE}).")
    String heap;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (factor <= 0 || seconds < 1) {
        throw new IllegalArgumentException("--factor must be positive and --seconds at least 1");
      }
      Started started = common.start(spec, "overload");
      return common.report(
          spec,
          OverloadDrill.run(
              started.work(), model.id, factor, seconds, heap, common.seed, started.log()));
    }
  }

  /** {@code tenbin drill soak}. */
  @Command(
      name = "soak",
      mixinStandardHelpOptions = true,
      description =
          "Run the four services as processes for --duration at --load-factor times their measured"
              + " capacity (jobs plus encode and search clients), kill -9 a random one every"
              + " --kill-every and restart it, and sample every process's memory, heap, open files"
              + " and threads; every job must succeed with no cell lost or computed twice.")
  static final class Soak implements Callable<Integer> {
    @CommandLine.Mixin Common common = new Common();

    @CommandLine.Mixin DenseModel model = new DenseModel();

    @Option(
        names = "--duration",
        paramLabel = "DURATION",
        defaultValue = "30m",
        converter = DurationConverter.class,
        description = "Length of the load, e.g. 75s, 30m, 2h (default ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
        names = "--kill-every",
        paramLabel = "DURATION",
        defaultValue = "3m",
        converter = DurationConverter.class,
        description = "Time between two kills (default ${DEFAULT-VALUE}).")
    Duration killEvery;

    @Option(
        names = "--sample-every",
        paramLabel = "DURATION",
        defaultValue = "10s",
        converter = DurationConverter.class,
        description = "Time between two samples of every process (default ${DEFAULT-VALUE}).")
    Duration sampleEvery;

    @Option(
        names = "--warm-up",
        paramLabel = "DURATION",
        converter = DurationConverter.class,
        description =
            "Part of each process's life under load left out of the slopes (default: --kill-every,"
                + " or a third of --duration when that is shorter).")
    Duration warmUp;

    @Option(
        names = "--load-factor",
        defaultValue = "2",
        description =
            "Offered load over the capacity one client measures (default ${DEFAULT-VALUE}).")
    double loadFactor;

    @Option(
        names = "--documents",
        defaultValue = "200",
        description = "Synthetic documents (default ${DEFAULT-VALUE}).")
    int documents;

    @Option(
        names = "--heap",
        defaultValue = "1g",
        description = "Every service's -Xmx (default ${DEFAULT-VALUE}).")
    String heap;

    @Option(
        names = "--sigterm",
        description =
            "Make every other fault a SIGTERM (a graceful stop, as a rolling update sends) instead"
                + " of a kill -9.")
    boolean sigterm;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      SoakSettings settings =
          new SoakSettings(
              duration,
              killEvery,
              sampleEvery,
              warmUp != null
                  ? warmUp
                  : killEvery.compareTo(duration) < 0 ? killEvery : duration.dividedBy(3),
              loadFactor,
              model.id,
              documents,
              heap,
              common.seed,
              sigterm);
      Started started = common.start(spec, "soak");
      SoakDrill.Outcome outcome = SoakDrill.run(started.work(), settings, started.log());
      return common.report(spec, outcome.row(), outcome.report().json());
    }
  }
}
