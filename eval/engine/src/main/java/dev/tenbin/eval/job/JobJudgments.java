package dev.tenbin.eval.job;

import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.trec.InputFileException;
import dev.tenbin.scoring.trec.QrelsReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The judgments a job's cells were scored against, kept in the job folder: {@code
 * judgments/DATASET_SHA.qrels} (the {@code dataset_sha} of the cells' versions), in TREC's qrels
 * layout ({@code query-id 0 document-id grade}, as {@code trec_eval} reads it). Each file holds the
 * judgments of the task's evaluated queries (those with a judgment above 0, in the task's order;
 * documents by id), so {@code trec_eval -c} on it and a cell exported with {@code tenbin export
 * trec} counts the queries the cell's metrics count. With them a report measures stored rankings
 * again at other cut-offs ({@link JobMeasures}) without the collection.
 *
 * <p>A file is written once per dataset fingerprint and never changed (the fingerprint covers the
 * judgments); shards of a job writing the same file at once each write a temporary name and move it
 * into place.
 */
public final class JobJudgments {
  public static final String FOLDER = "judgments";

  private JobJudgments() {}

  /** Writes the judgments of every task of {@code plan} not yet kept in {@code jobDirectory}. */
  public static void write(Path jobDirectory, List<Work> plan) {
    Set<String> written = new HashSet<>();
    for (Work work : plan) {
      JobTask task = work.task();
      if (written.add(task.datasetSha())) {
        write(jobDirectory, task);
      }
    }
  }

  static void write(Path jobDirectory, JobTask task) {
    Path file = file(jobDirectory, task.datasetSha());
    if (Files.isRegularFile(file)) {
      return;
    }
    StringBuilder qrelsText = new StringBuilder();
    Qrels qrels = task.data().qrels();
    for (String query : task.data().evaluatedQueryIds()) {
      for (Map.Entry<String, Integer> judgment : new TreeMap<>(qrels.judgments(query)).entrySet()) {
        qrelsText
            .append(query)
            .append(" 0 ")
            .append(judgment.getKey())
            .append(' ')
            .append(judgment.getValue())
            .append('\n');
      }
    }
    try {
      JobFiles.replace(file, qrelsText.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The judgments kept for that dataset fingerprint; empty when the job folder has none. */
  public static Optional<Qrels> read(Path jobDirectory, String datasetSha) {
    if (datasetSha == null || !datasetSha.matches("[0-9a-f]{64}")) {
      return Optional.empty();
    }
    Path file = file(jobDirectory, datasetSha);
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(QrelsReader.read(file));
    } catch (InputFileException e) {
      throw new dev.tenbin.core.InvalidInputException("DIR", e.getMessage());
    }
  }

  /** {@code jobDirectory/judgments/DATASET_SHA.qrels}. */
  public static Path file(Path jobDirectory, String datasetSha) {
    return jobDirectory.resolve(FOLDER).resolve(datasetSha + ".qrels");
  }
}
