package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.job.ExternalRun;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tenbin import-run}: evaluates a TREC run produced elsewhere on a BEIR folder and stores it
 * in a job folder as a system of its own, {@code external:NAME} ({@link ExternalRun}).
 */
@Command(
    name = "import-run",
    mixinStandardHelpOptions = true,
    description = {
      "Evaluate a TREC run produced elsewhere (qid Q0 docid rank score tag) on a BEIR folder and"
          + " store it in a job folder as the system external:NAME, shown by 'tenbin report' and"
          + " exports beside the job's own systems.",
      "Ties: the run is ordered as trec_eval orders it (score descending, equal scores by docid"
          + " descending; the rank column is ignored); its top --top-k are stored with their"
          + " scores as given. The cell's fingerprint covers the run file's SHA-256, the dataset"
          + " fingerprint, name, task and depth."
    })
public final class ImportRunCommand implements Callable<Integer> {
  @Option(names = "--run", required = true, paramLabel = "FILE", description = "The TREC run.")
  Path run;

  @Option(
      names = "--dataset",
      required = true,
      paramLabel = "DIR",
      description = "The BEIR folder the run ranks.")
  Path dataset;

  @Option(
      names = "--split",
      defaultValue = BeirDatasetReader.DEFAULT_SPLIT,
      paramLabel = "NAME",
      description = "The qrels split, qrels/NAME.tsv (default ${DEFAULT-VALUE}).")
  String split;

  @Option(
      names = "--name",
      required = true,
      paramLabel = "SYSTEM",
      description = "The system's name; it is reported as external:SYSTEM.")
  String name;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "JOBDIR",
      description = "The job folder to store the cell in (created when absent).")
  Path out;

  @Option(
      names = "--task",
      paramLabel = "TASK",
      description =
          "The task name (default: the folder's name). A task the job folder already holds lends"
              + " its benchmark, dataset, language and domain, so the run joins its leaderboard.")
  String task;

  @Option(
      names = "--benchmark",
      paramLabel = "NAME",
      description = "The benchmark (task set) name, when the job holds none for --task.")
  String benchmark;

  @Option(
      names = "--language",
      paramLabel = "CODE",
      description = "ISO 639-1 code of the task, when the job holds none for --task (default und).")
  String language;

  @Option(
      names = "--top-k",
      defaultValue = "100",
      description = "Depth stored and evaluated per query (default ${DEFAULT-VALUE}).")
  int topK;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (topK < 1 || topK > 10_000) {
      throw new InvalidInputException("--top-k", "--top-k must be within 1..10000, got " + topK);
    }
    ResultStore store = ResultStore.open(out);
    JobTask jobTask =
        ExternalRun.task(
            dataset,
            split,
            task,
            benchmark,
            language,
            store.readAll().stream().map(cell -> cell.key().task()).toList());
    PrintWriter err = spec.commandLine().getErr();
    ExternalRun.Imported imported = ExternalRun.evaluate(run, name, jobTask, topK);
    if (imported.ignoredQueries() > 0) {
      err.println(
          "tenbin: warning: "
              + imported.ignoredQueries()
              + (imported.ignoredQueries() == 1
                  ? " query of the run is not an evaluated query of "
                  : " queries of the run are not evaluated queries of ")
              + jobTask.task()
              + " (ignored)");
    }
    CellRecord record = imported.record();
    boolean stored = store.append(record);
    err.printf(
        Locale.ROOT,
        "tenbin: %s %s: nDCG@10 %.4f over %d queries (cell %s)%n",
        stored ? "stored" : "already stored",
        record.key().label(),
        record.metrics().getOrDefault("ndcg@10", Double.NaN),
        record.queries().size(),
        record.fingerprint().substring(0, 12));
    err.flush();
    return 0;
  }
}
