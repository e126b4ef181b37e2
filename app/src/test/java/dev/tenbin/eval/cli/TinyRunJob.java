package dev.tenbin.eval.cli;

import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A job of 14 cells for {@code tenbin run} in a child JVM: two tasks over the tiny BEIR folder,
 * BM25, a tiny dense model with its base, int8 and binary variants, and LightRetriever; long enough
 * for a test to stop the child between cells.
 */
final class TinyRunJob {
  static final int CELLS = 14;

  private TinyRunJob() {}

  /**
   * Writes the data, the model and the spec under {@code tmp}; returns the command line of a child
   * JVM running it into {@code out}.
   */
  static List<String> write(Path tmp, Path out) throws IOException {
    TinyBeir.write(tmp.resolve("data").resolve("tiny"));
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: b\ntasks:\n  - {name: tiny, language: en, source: {path: data/tiny}}\n"
            + "  - {name: tiny2, language: en, source: {path: data/tiny}}\n");
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        "task_sets: [tasks.yaml]\nretrievers:\n  - bm25\n"
            + "  - {retriever: dense:tiny-dense, variants: [base, int8, binary]}\n"
            + "  - light:tiny-dense\n");
    return runCommand(tmp, spec, out);
  }

  /**
   * The command line of a child JVM running {@code tenbin run SPEC} into {@code out} with the
   * models and the embedding cache under {@code tmp}, line progress and no reports, then {@code
   * options}.
   */
  static List<String> runCommand(Path tmp, Path spec, Path out, String... options)
      throws IOException {
    List<String> command = new ArrayList<>(KilledChildJvm.command(TenbinCli.class.getName(), tmp));
    command.addAll(
        List.of(
            "run",
            spec.toString(),
            "--out",
            out.toString(),
            "--models-dir",
            tmp.resolve("models").toString(),
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--progress",
            "lines",
            "--no-reports"));
    command.addAll(List.of(options));
    return command;
  }

  /** Waits (up to 120 s) until the child has stored its first cell or has exited. */
  static void awaitFirstCell(Process child, Path out) throws IOException, InterruptedException {
    Path events = out.resolve("events.jsonl");
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline
        && child.isAlive()
        && !(Files.exists(events) && Files.readString(events).contains("cell_stored"))) {
      Thread.sleep(5);
    }
  }
}
