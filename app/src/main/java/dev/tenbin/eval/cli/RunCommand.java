package dev.tenbin.eval.cli;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.job.ConsoleJobProgress;
import dev.tenbin.eval.job.ExternalRun;
import dev.tenbin.eval.job.JobLauncher;
import dev.tenbin.eval.job.JobOutcome;
import dev.tenbin.eval.job.JobSpec;
import dev.tenbin.eval.job.PlanSlice;
import dev.tenbin.eval.job.ServiceOptions;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.report.JobReports;
import dev.tenbin.eval.shard.ChildJvm;
import dev.tenbin.eval.shard.JobMerge;
import dev.tenbin.eval.shard.LocalExecutor;
import dev.tenbin.eval.shard.Shard;
import dev.tenbin.eval.shard.ShardAssignment;
import dev.tenbin.eval.shard.ShardOutcome;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tenbin run SPEC --out DIR}: runs a job on the embedded services (or remote ones), storing
 * every finished cell; run again with the same {@code --out} to resume after an interruption. With
 * {@code --shard I/K} it runs one shard of the job and writes no reports; with {@code --executor
 * local|kubernetes} it runs all K shards (child processes, or an Indexed Job) and then merges.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    abbreviateSynopsis = true,
    description = {
      "Run an evaluation job (YAML spec) into an output folder.",
      "Finished cells are never recomputed: rerun the same command to resume after a crash or kill.",
      "",
      "Sharding: --shard I/K (0 <= I < K) runs only shard I of the job's cells, into the same folder and"
          + " the same content-addressed cells as a whole run, and writes no leaderboards or warehouse (a"
          + " shard is partial). Shards are whole work groups (one task's work with one model; a task's"
          + " candidate sets with their rerankers) balanced by estimated cost (documents and queries"
          + " encoded, pairs reranked), the same in every process that plans the job.",
      "When every shard has run, --merge-only (or a plain run, which finds every cell stored) computes"
          + " nothing and writes the leaderboards and the warehouse.",
      "--executor local runs the K shards as child processes of this one; --executor kubernetes as one"
          + " Indexed Job (k8s/README.md, 'Sharded jobs'). Both merge at the end; a rerun after a failure"
          + " computes only the missing cells."
    })
public final class RunCommand implements Callable<Integer> {
  /** Exit code when the job finished with failed work items. */
  public static final int EXIT_INCOMPLETE = 3;

  /** The main class a child process of {@code --executor local} starts. */
  static final String MAIN_CLASS = TenbinCli.class.getName();

  /** Options of this process that a shard's process does not get (it is given its own). */
  private static final Set<String> NOT_PASSED_TO_SHARDS =
      Set.of(
          "--out",
          "--progress",
          "--no-reports",
          "--shard",
          "--merge-only",
          "--executor",
          "--parallelism",
          "--retries");

  @Parameters(index = "0", paramLabel = "SPEC", description = "Job spec (YAML).")
  Path specFile;

  @Parameters(
      index = "1..*",
      paramLabel = "POD_ARG",
      description =
          "With --executor kubernetes, after --: more arguments of each pod's tenbin run, e.g."
              + " -- --models-dir /results/models --cache-dir /results/cache. The pods get"
              + " --index/--encoder/--rerank-endpoint as given here, nothing else of this command line.")
  List<String> podArgs = new ArrayList<>();

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description = "Job folder: results, leaderboards, warehouse.")
  Path out;

  @CommandLine.ArgGroup(validate = false, heading = ServiceOptions.HEADING)
  ServiceOptions services = new ServiceOptions();

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

  @Option(
      names = "--shard",
      paramLabel = "SHARD",
      description =
          "I/K: run only shard I of K (zero-based) of the job's cells; no leaderboards or warehouse. Writes"
              + " shards/shard-I-of-K.json (cells computed and found stored) beside the cells.")
  String shard;

  @Option(
      names = "--merge-only",
      description =
          "Compute nothing: check that every cell of the job is stored (after its shards ran), then"
              + " write the leaderboards and the warehouse. Exits 3 naming the missing cells otherwise.")
  boolean mergeOnly;

  @Option(
      names = "--executor",
      defaultValue = "inline",
      paramLabel = "EXECUTOR",
      description =
          "inline: this process runs the job (or its --shard). local: --parallelism child processes run"
              + " one shard each (same java and class path), a failed shard is started once more, then"
              + " the merge. kubernetes: one Indexed Job of --parallelism shards (see the kubernetes"
              + " options), then the merge here, from the shared results folder (default"
              + " ${DEFAULT-VALUE}).")
  String executor;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      paramLabel = "K",
      description =
          "With --executor local or kubernetes: the number of shards, all run at once (default ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--retries",
      defaultValue = "1",
      paramLabel = "N",
      description =
          "With --executor local or kubernetes: how many times a failed shard is started again"
              + " (kubernetes: backoffLimitPerIndex) (default ${DEFAULT-VALUE}).")
  int retries;

  // A section of its own in --help, after the everyday options.
  @CommandLine.ArgGroup(
      validate = false,
      order = 100,
      heading = "%nWith --executor kubernetes (one Indexed Job; k8s/README.md):%n")
  KubernetesOptions kubernetes = new KubernetesOptions();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    JobSpec job = JobSpec.read(specFile);
    JobLauncher launcher = new JobLauncher(services.toOptions());
    check(
        podArgs.isEmpty() || executor.equals("kubernetes"),
        "POD_ARG",
        "(arguments after SPEC) are only for --executor kubernetes, got " + podArgs);
    if (!job.importedRuns().isEmpty()
        && (mergeOnly || shard != null || !executor.equals("inline"))) {
      throw new InvalidInputException(
          "runs",
          "runs: (imported TREC runs) are read by a whole inline run (tenbin run SPEC); import them"
              + " with tenbin import-run into a sharded job's folder");
    }
    if (mergeOnly) {
      check(
          shard == null && executor.equals("inline"),
          "--merge-only",
          "takes no --shard or --executor");
      return merge(launcher.plan(job), err);
    }
    return switch (executor) {
      case "inline" -> shard == null ? runWhole(job, launcher, err) : runShard(job, launcher, err);
      case "local" -> {
        check(shard == null, "--shard", "is for one shard's process; --executor local starts them");
        yield runLocal(job, launcher, err);
      }
      case "kubernetes" -> {
        check(
            shard == null, "--shard", "is for one shard's pod; --executor kubernetes creates them");
        yield kubernetes.run(this, job, launcher, err);
      }
      default ->
          throw new InvalidInputException(
              "--executor",
              "--executor must be inline, local or kubernetes, got '" + executor + "'");
    };
  }

  private int runWhole(JobSpec job, JobLauncher launcher, PrintWriter err) {
    JobOutcome outcome = runSlice(job, launcher, PlanSlice.WHOLE, err);
    importRuns(job, launcher, err);
    if (!noReports) {
      JobReports.write(out, spec.commandLine().getOut(), err);
    }
    err.flush();
    return outcome.succeeded() ? 0 : EXIT_INCOMPLETE;
  }

  /** The spec's {@code runs:}, imported once the job's own cells are stored. */
  private void importRuns(JobSpec job, JobLauncher launcher, PrintWriter err) {
    if (!job.importedRuns().isEmpty()) {
      ExternalRun.importAll(job, launcher.loadTasks(job), out, err);
    }
  }

  private int runShard(JobSpec job, JobLauncher launcher, PrintWriter err) {
    Shard slice = Shard.parse(shard);
    JobOutcome outcome = runSlice(job, launcher, slice, err);
    ShardOutcome.of(slice, outcome).write(out);
    err.printf(
        Locale.ROOT,
        "tenbin: shard %s: %d cells, %d already stored, %d computed; leaderboards and warehouse are"
            + " written by the merge (tenbin run SPEC --merge-only)%n",
        slice.label(),
        outcome.cellsTotal(),
        outcome.cellsAlreadyStored(),
        outcome.cellsComputed());
    err.flush();
    return outcome.succeeded() ? 0 : EXIT_INCOMPLETE;
  }

  private JobOutcome runSlice(JobSpec job, JobLauncher launcher, PlanSlice slice, PrintWriter err) {
    boolean bars =
        switch (progress) {
          case "auto" -> ConsoleJobProgress.interactiveTerminal();
          case "bars" -> true;
          case "lines", "none" -> false;
          default ->
              throw new InvalidInputException(
                  "--progress",
                  "--progress must be auto, bars, lines or none, got '" + progress + "'");
        };
    JobOutcome outcome;
    try (ConsoleJobProgress listener =
            new ConsoleJobProgress(
                progress.equals("none") ? new PrintWriter(java.io.Writer.nullWriter()) : err,
                bars);
        InterruptNotice notice =
            InterruptNotice.whileRunning(
                err,
                () ->
                    listener.storedOfPlanned()
                        + " in "
                        + out
                        + "; the same command resumes, computing only the missing cells")) {
      outcome = launcher.run(job, out, listener, Cancellation.NEVER, slice);
    }
    outcome.failures().forEach(failure -> err.println("tenbin: failed: " + failure));
    return outcome;
  }

  private int runLocal(JobSpec job, JobLauncher launcher, PrintWriter err) {
    check(parallelism >= 1, "--parallelism", "must be at least 1");
    List<Work> plan = launcher.plan(job);
    describe(plan, err);
    List<String> passed = passThrough();
    LocalExecutor local =
        new LocalExecutor(
            slice -> {
              List<String> line = new ArrayList<>(ChildJvm.command(MAIN_CLASS));
              line.addAll(
                  List.of(
                      "run",
                      specFile.toAbsolutePath().toString(),
                      "--out",
                      out.toAbsolutePath().toString(),
                      "--shard",
                      slice.label(),
                      "--progress",
                      "lines"));
              line.addAll(passed);
              return line;
            },
            err,
            retries);
    List<LocalExecutor.ShardRun> runs = local.run(parallelism, Cancellation.NEVER);
    boolean allSucceeded = true;
    for (LocalExecutor.ShardRun run : runs) {
      allSucceeded &= run.succeeded();
      err.printf(
          Locale.ROOT,
          "tenbin: shard %s %s after %d attempt(s): %s%n",
          run.shard().label(),
          run.succeeded() ? "succeeded" : "failed (exit " + run.exitCode() + ")",
          run.attempts(),
          counts(run.shard()));
    }
    if (!allSucceeded) {
      err.println(
          "tenbin: not merged: a shard failed; rerun the same command to compute only the missing cells");
      err.flush();
      return EXIT_INCOMPLETE;
    }
    return merge(plan, err);
  }

  /**
   * What the last run of {@code shard} wrote in {@code shards/}: cells found stored and computed.
   */
  String counts(Shard shard) {
    return ShardOutcome.read(out, shard)
        .map(o -> o.cellsAlreadyStored() + " already stored, " + o.cellsComputed() + " computed")
        .orElse("no outcome written");
  }

  /** Prints how the plan splits into {@code --parallelism} shards. */
  void describe(List<Work> plan, PrintWriter err) {
    ShardAssignment assignment = ShardAssignment.of(plan, parallelism);
    for (int i = 0; i < assignment.count(); i++) {
      err.printf(
          Locale.ROOT,
          "tenbin: shard %d/%d: %d cells in %d work groups, estimated cost %.0f%n",
          i,
          assignment.count(),
          assignment.cells(i),
          assignment.groups(i).size(),
          assignment.load(i));
    }
    err.flush();
  }

  /**
   * The merge: computes nothing; writes the leaderboards and the warehouse when every cell of the
   * plan is stored.
   */
  int merge(List<Work> plan, PrintWriter err) {
    JobMerge.Result merged = JobMerge.check(out, plan);
    if (!merged.complete()) {
      err.printf(
          Locale.ROOT,
          "tenbin: merge: %d of %d cells stored; missing:%n",
          merged.cellsStored(),
          merged.cellsTotal());
      merged.missing().stream().limit(20).forEach(m -> err.println("tenbin:   " + m));
      if (merged.missing().size() > 20) {
        err.println("tenbin:   ... and " + (merged.missing().size() - 20) + " more");
      }
      err.println("tenbin: run the missing shards (or tenbin run SPEC) first");
      err.flush();
      return EXIT_INCOMPLETE;
    }
    err.printf(
        Locale.ROOT, "tenbin: merge: all %d cells stored, none computed%n", merged.cellsTotal());
    if (!noReports) {
      JobReports.write(out, spec.commandLine().getOut(), err);
    }
    err.flush();
    return 0;
  }

  /**
   * The options of this command line that a shard's process gets as they were given (services,
   * caches, execution provider, service security), without the executor's own.
   */
  List<String> passThrough() {
    List<String> args = new ArrayList<>();
    for (CommandLine.Model.OptionSpec option :
        spec.commandLine().getParseResult().matchedOptions()) {
      // The executor's own options (the Kubernetes group) stay with this process.
      if (NOT_PASSED_TO_SHARDS.contains(option.longestName())
          || (option.group() != null
              && option.group().typeInfo().getType() == KubernetesOptions.class)) {
        continue;
      }
      if (option.arity().max() == 0) {
        args.add(option.longestName());
        continue;
      }
      for (String value : option.originalStringValues()) {
        args.add(option.longestName());
        args.add(value);
      }
    }
    return args;
  }

  static void check(boolean condition, String field, String problem) {
    if (!condition) {
      throw new InvalidInputException(field, field + " " + problem);
    }
  }

  Path out() {
    return out;
  }

  Path specFile() {
    return specFile;
  }

  List<String> podArgs() {
    return podArgs;
  }

  int parallelism() {
    return parallelism;
  }

  int retries() {
    return retries;
  }

  ServiceOptions services() {
    return services;
  }
}
