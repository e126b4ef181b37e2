package dev.tenbin.eval.cli;

import dev.tenbin.eval.taskset.HubDatasetClient;
import dev.tenbin.eval.taskset.LoadedTask;
import dev.tenbin.eval.taskset.TaskLoader;
import dev.tenbin.eval.taskset.TaskSetParser;
import dev.tenbin.eval.taskset.TaskSetSpec;
import dev.tenbin.eval.taskset.TaskSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tenbin tasks show|fetch SPEC}: the tasks a task-set YAML file declares, and their data.
 */
@Command(
    name = "tasks",
    mixinStandardHelpOptions = true,
    description =
        "Task sets: benchmarks declared in YAML (local BEIR folders and pinned hub datasets).",
    subcommands = {TasksCommand.Show.class, TasksCommand.Fetch.class})
public final class TasksCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "List the tasks of a spec: name, dataset, language, domain, source.")
  static final class Show implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SPEC", description = "The task-set YAML file.")
    Path specFile;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      TaskSetSpec taskSet = new TaskSetParser().parse(specFile);
      PrintWriter out = spec.commandLine().getOut();
      out.printf("# %s: %d tasks%n", taskSet.name(), taskSet.tasks().size());
      out.println("task\tdataset\tlanguage\tdomain\tsource");
      for (TaskSpec task : taskSet.tasks()) {
        out.printf(
            "%s\t%s\t%s\t%s\t%s%n",
            task.name(),
            task.dataset(),
            task.language(),
            task.domain().isEmpty() ? "-" : task.domain(),
            task.source().describe());
      }
      for (TaskSpec task : taskSet.tasks()) {
        if (task.source() instanceof dev.tenbin.eval.taskset.DatasetSource.LocalBeir local) {
          String fidelity = fidelity(local.directory());
          if (fidelity != null) {
            out.printf("# %s is a Nano-set: %s%n", task.name(), fidelity);
          }
        }
      }
      out.flush();
      return 0;
    }

    /**
     * What a Nano-set folder's {@code fidelity.json} ({@code tenbin nano fidelity --record}) says,
     * in a line; null when it has none or it cannot be read.
     */
    static String fidelity(Path folder) {
      Path file = folder.resolve("fidelity.json");
      if (!java.nio.file.Files.isRegularFile(file)) {
        return null;
      }
      try {
        var root = new com.fasterxml.jackson.databind.ObjectMapper().readTree(file.toFile());
        return String.format(
            java.util.Locale.ROOT,
            "%s ranks %d systems as %s does with Kendall tau-b %s (%d of %d pairs the same;"
                + " fidelity.json)",
            root.path("metric").asText("ndcg@10"),
            root.path("systems").size(),
            root.path("full_task").asText("its full collection"),
            root.path("kendall_tau_b").isNumber()
                ? String.format(
                    java.util.Locale.ROOT, "%.3f", root.path("kendall_tau_b").asDouble())
                : "n/a",
            root.path("pairs_ordered_the_same").asInt(),
            root.path("pairs").asInt());
      } catch (java.io.IOException e) {
        return null;
      }
    }
  }

  @Command(
      name = "fetch",
      mixinStandardHelpOptions = true,
      description =
          "Download (hub) or read (local) every task of a spec and print its size and identity."
              + " Hub endpoint and token come from HF_ENDPOINT and HF_TOKEN.")
  static final class Fetch implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SPEC", description = "The task-set YAML file.")
    Path specFile;

    @Option(
        names = "--cache-dir",
        paramLabel = "DIR",
        defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}",
        description = "Where hub datasets are downloaded (default ${DEFAULT-VALUE}).")
    Path cacheDirectory;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      TaskSetSpec taskSet = new TaskSetParser().parse(specFile);
      TaskLoader loader =
          new TaskLoader(cacheDirectory, HubDatasetClient.fromEnvironment(cacheDirectory));
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      out.println("task\tdocs\tqueries\tdataset_sha");
      for (TaskSpec task : taskSet.tasks()) {
        err.printf("tenbin: loading %s from %s%n", task.name(), task.source().describe());
        err.flush();
        LoadedTask loaded = loader.load(taskSet, task);
        for (String warning : loaded.dataset().warnings()) {
          err.printf("tenbin: %s: %s%n", task.name(), warning);
        }
        out.printf(
            "%s\t%d\t%d\t%s%n",
            task.name(),
            loaded.dataset().corpus().size(),
            loaded.dataset().evaluatedQueryIds().size(),
            loaded.datasetSha());
        out.flush();
      }
      return 0;
    }
  }
}
