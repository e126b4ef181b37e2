package dev.tenbin.eval.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.scoring.trec.TrecRunWriter;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Writes an evaluation's files into {@code --out}: {@code results.json}, one TREC run file and one
 * per-query metrics table per run. Everything is written into a staging folder beside the target
 * and moved into place in one rename at the end, so a failure never leaves a half-written folder.
 */
public final class ReportWriter {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Path target;

  private ReportWriter(Path target) {
    this.target = target;
  }

  /** Checks up front that {@code target} can be written: absent, or an empty folder. */
  public static ReportWriter prepare(Path target) {
    Path absolute = target.toAbsolutePath().normalize();
    if (Files.exists(absolute)) {
      if (!Files.isDirectory(absolute)) {
        throw new InvalidInputException("--out", "--out " + target + " exists and is not a folder");
      }
      try (Stream<Path> entries = Files.list(absolute)) {
        if (entries.findAny().isPresent()) {
          throw new InvalidInputException(
              "--out", "--out " + target + " is not empty; choose a new or empty folder");
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read --out " + target, e);
      }
    }
    Path parent = absolute.getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      try {
        Files.createDirectories(parent);
      } catch (IOException e) {
        throw new InvalidInputException("--out", "cannot create the parent of --out " + target);
      }
    }
    return new ReportWriter(absolute);
  }

  public void write(EvalReport report) {
    Path staging =
        target.resolveSibling("." + target.getFileName() + ".staging-" + UUID.randomUUID());
    try {
      Files.createDirectories(staging.resolve("runs"));
      Files.createDirectories(staging.resolve("per_query"));
      JSON.writerWithDefaultPrettyPrinter()
          .writeValue(staging.resolve("results.json").toFile(), report.toJsonTree());
      for (CellResult run : report.runs()) {
        TrecRunWriter.write(
            staging.resolve("runs").resolve(run.label() + ".trec"),
            run.rankings(),
            "tenbin-" + run.label());
        writePerQuery(staging.resolve("per_query").resolve(run.label() + ".tsv"), run);
      }
      if (Files.isDirectory(target)) {
        Files.delete(target);
      }
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      deleteQuietly(staging);
      throw new UncheckedIOException("cannot write --out " + target, e);
    } catch (RuntimeException e) {
      deleteQuietly(staging);
      throw e;
    }
  }

  private static void writePerQuery(Path file, CellResult run) throws IOException {
    List<String> names = List.copyOf(run.metrics().keySet());
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write("query_id");
      for (String name : names) {
        out.write('\t');
        out.write(name);
      }
      out.newLine();
      for (Map.Entry<String, Map<String, Double>> query : run.perQuery().entrySet()) {
        out.write(query.getKey());
        for (String name : names) {
          out.write('\t');
          out.write(String.format(Locale.ROOT, "%.6f", query.getValue().get(name)));
        }
        out.newLine();
      }
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException ignored) {
      // Best effort: a leftover staging folder is hidden and named as such.
    }
  }
}
