package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.export.CellSelection;
import dev.tenbin.eval.export.MtebExport;
import dev.tenbin.eval.export.TrecExport;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tenbin export}: stored results in other tools' formats. */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = "Export stored job results in other tools' formats.",
    subcommands = {ExportCommand.Trec.class, ExportCommand.Mteb.class})
public final class ExportCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "trec",
      mixinStandardHelpOptions = true,
      description = {
        "Write one stored cell's rankings as a TREC run file (qid Q0 docid rank score tag).",
        "Scores are the stored FP32 values, tie-broken: a score equal to (or above) the one written on"
            + " the line above is written one FP32 ulp below it, so trec_eval and 'tenbin metrics' read the"
            + " file in the stored order and reproduce the stored metrics (README, Tie policy)."
      })
  static final class Trec implements Callable<Integer> {
    @Mixin CellOptions cells;

    @Option(names = "--out", paramLabel = "FILE", description = "The run file (default: stdout).")
    Path out;

    @Option(
        names = "--tag",
        paramLabel = "TAG",
        description = "The run tag column (default: SYSTEM/VARIANT).")
    String tag;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      CellRecord chosen = cells.selection().select(cells.stored());
      String runTag = tag != null ? tag : TrecExport.defaultTag(chosen);
      if (runTag.isEmpty() || runTag.codePoints().anyMatch(Character::isWhitespace)) {
        throw new InvalidInputException(
            "--tag", "--tag '" + runTag + "' must be one word (no whitespace)");
      }
      try {
        if (out == null) {
          PrintWriter stdout = spec.commandLine().getOut();
          TrecExport.write(chosen, stdout, runTag);
          stdout.flush();
        } else {
          Path parent = out.toAbsolutePath().getParent();
          if (parent != null) {
            Files.createDirectories(parent);
          }
          try (Writer writer =
              new BufferedWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            TrecExport.write(chosen, writer, runTag);
          }
          PrintWriter err = spec.commandLine().getErr();
          err.println("tenbin export: wrote " + chosen.key().label() + " to " + out);
          err.flush();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + (out == null ? "the run" : out), e);
      }
      return 0;
    }
  }

  @Command(
      name = "mteb",
      mixinStandardHelpOptions = true,
      description = {
        "Write stored cells as MTEB result files ({\"dataset_revision\", \"task_name\","
            + " \"mteb_version\": null, \"scores\": {\"test\": [{\"ndcg_at_10\", ...,"
            + " \"main_score\", \"hf_subset\", \"languages\"}]}, \"evaluation_time\","
            + " \"kg_co2_emissions\"}), only the keys mteb reads.",
        "One cell (--cell, or --system and --task) goes to stdout or --out FILE; without a"
            + " selection every cell goes under --out DIR in the layout of mteb's results"
            + " repository, ORG__MODEL/REVISION/TASK.json with model_meta.json beside, a folder"
            + " that mteb loads and 'tenbin report --official DIR' reads back."
      })
  static final class Mteb implements Callable<Integer> {
    @Mixin CellOptions cells;

    @Option(
        names = "--out",
        paramLabel = "FILE|DIR",
        description = "The result file of one cell (default: stdout), or the folder of all cells.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      List<CellRecord> stored = cells.stored();
      var writer = ResultStore.JSON.writerWithDefaultPrettyPrinter();
      PrintWriter err = spec.commandLine().getErr();
      if (!cells.namesOne()) {
        if (out == null) {
          throw new InvalidInputException(
              "--out", "name a cell (--cell, or --system and --task), or a folder with --out DIR");
        }
        java.util.Set<Path> described = new java.util.HashSet<>();
        for (CellRecord record : stored) {
          Path file = out.resolve(MtebExport.relativePath(record));
          Files.createDirectories(file.getParent());
          writer.writeValue(file.toFile(), MtebExport.toJson(record));
          Path meta =
              out.resolve(MtebExport.modelFolder(record)).resolve(MtebExport.MODEL_META_FILE);
          if (described.add(meta)) {
            writer.writeValue(meta.toFile(), MtebExport.modelMeta(record));
          }
        }
        err.println("tenbin export: wrote " + stored.size() + " MTEB result files under " + out);
        err.flush();
        return 0;
      }
      CellRecord chosen = cells.selection().select(stored);
      String json = writer.writeValueAsString(MtebExport.toJson(chosen));
      if (out == null) {
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.println(json);
        stdout.flush();
      } else {
        Files.writeString(out, json + "\n", StandardCharsets.UTF_8);
        err.println("tenbin export: wrote " + chosen.key().label() + " to " + out);
        err.flush();
      }
      return 0;
    }
  }

  /** The job folder and the cell options every export shares. */
  static final class CellOptions {
    @Parameters(
        index = "0",
        paramLabel = "DIR",
        description = "A job output folder (holding cells/).")
    Path jobDir;

    @Option(
        names = "--cell",
        paramLabel = "FINGERPRINT_PREFIX",
        description = "The cell, by a prefix of its fingerprint.")
    String cell;

    @Option(
        names = "--system",
        paramLabel = "SYSTEM",
        description = "The cell's system, e.g. bm25 or dense:bge-small-en-v1.5 (with --task).")
    String system;

    @Option(
        names = "--task",
        paramLabel = "TASK",
        description = "The cell's task, e.g. NanoSciFact.")
    String task;

    @Option(
        names = "--variant",
        paramLabel = "VARIANT",
        description = "The cell's variant, when the system has several.")
    String variant;

    @Option(
        names = "--mode",
        paramLabel = "MODE",
        description = "retrieval, rerank or candidates, when several match.")
    String mode;

    /** Whether a cell is named (by fingerprint prefix, or by system or task). */
    boolean namesOne() {
      return cell != null || system != null || task != null;
    }

    CellSelection selection() {
      return cell != null
          ? new CellSelection(cell, system, task, variant, mode)
          : CellSelection.bySystem(system, task, variant, mode);
    }

    List<CellRecord> stored() {
      return ResultStore.existing(jobDir, "JOB_DIR").readAll();
    }
  }
}
