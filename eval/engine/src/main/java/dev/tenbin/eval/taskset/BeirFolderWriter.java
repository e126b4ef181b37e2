package dev.tenbin.eval.taskset;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.scoring.beir.DatasetException;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Turns a hub snapshot's corpus, queries and qrels tables into a BEIR folder ({@code corpus.jsonl},
 * {@code queries.jsonl}, {@code qrels/test.tsv}, and {@code qrels/spans.tsv} when the snapshot has
 * spans), so everything downstream reads one format.
 *
 * <p>Columns: corpus {@code _id} (or {@code id}), {@code title} (optional), {@code text}; queries
 * {@code _id} (or {@code id}), {@code text}; qrels {@code query-id} (or {@code query_id}), {@code
 * corpus-id} (or {@code corpus_id}, {@code doc_id}) and {@code score} (optional, default 1; an
 * integer grade); spans {@code query-id}, {@code corpus-id}, {@code start}, {@code end}. The folder
 * is written under a temporary name and renamed into place, so it is either complete or absent.
 */
final class BeirFolderWriter {
  private static final ObjectMapper JSON = new ObjectMapper();

  private BeirFolderWriter() {}

  /** Whether {@code folder} holds a complete BEIR folder written earlier. */
  static boolean isComplete(Path folder) {
    return Files.isRegularFile(folder.resolve("corpus.jsonl"))
        && Files.isRegularFile(folder.resolve("queries.jsonl"))
        && Files.isRegularFile(folder.resolve("qrels").resolve("test.tsv"));
  }

  /**
   * Writes the BEIR folder {@code target} from the snapshot's files; {@code target} must not exist.
   */
  static void write(HubSnapshot snapshot, Path target) {
    Path partial = null;
    try {
      Files.createDirectories(target.getParent());
      partial =
          Files.createTempDirectory(target.getParent(), "." + target.getFileName() + ".partial-");
      Files.createDirectories(partial.resolve("qrels"));
      try (BufferedWriter corpus =
          Files.newBufferedWriter(partial.resolve("corpus.jsonl"), StandardCharsets.UTF_8)) {
        for (Path file : snapshot.files().get("corpus")) {
          TableReader.read(file, row -> writeJson(corpus, document(file, row)));
        }
      }
      try (BufferedWriter queries =
          Files.newBufferedWriter(partial.resolve("queries.jsonl"), StandardCharsets.UTF_8)) {
        for (Path file : snapshot.files().get("queries")) {
          TableReader.read(file, row -> writeJson(queries, query(file, row)));
        }
      }
      try (BufferedWriter qrels =
          Files.newBufferedWriter(
              partial.resolve("qrels").resolve("test.tsv"), StandardCharsets.UTF_8)) {
        qrels.write("query-id\tcorpus-id\tscore\n");
        for (Path file : snapshot.files().get("qrels")) {
          TableReader.read(file, row -> writeLine(qrels, judgment(file, row)));
        }
      }
      List<Path> spanFiles = snapshot.files().getOrDefault("spans", List.of());
      if (!spanFiles.isEmpty()) {
        try (BufferedWriter spans =
            Files.newBufferedWriter(
                partial.resolve("qrels").resolve("spans.tsv"), StandardCharsets.UTF_8)) {
          spans.write("query-id\tcorpus-id\tstart\tend\n");
          for (Path file : spanFiles) {
            TableReader.read(file, row -> writeLine(spans, span(file, row)));
          }
        }
      }
      try {
        Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        partial = null;
      } catch (IOException e) {
        if (!isComplete(target)) {
          throw e; // not a concurrent writer finishing first
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the BEIR folder " + target, e);
    } finally {
      deleteQuietly(partial);
    }
  }

  private static ObjectNode document(Path file, Map<String, String> row) {
    ObjectNode node = JSON.createObjectNode();
    node.put("_id", required(file, row, "_id", "id"));
    String title = row.get("title");
    node.put("title", title == null ? "" : title);
    node.put("text", required(file, row, "text"));
    return node;
  }

  private static ObjectNode query(Path file, Map<String, String> row) {
    ObjectNode node = JSON.createObjectNode();
    node.put("_id", required(file, row, "_id", "id"));
    node.put("text", required(file, row, "text"));
    return node;
  }

  private static String judgment(Path file, Map<String, String> row) {
    String queryId = tsvId(file, required(file, row, "query-id", "query_id"), "qrels");
    String docId = tsvId(file, required(file, row, "corpus-id", "corpus_id", "doc_id"), "qrels");
    return queryId + "\t" + docId + "\t" + grade(file, row.get("score")) + "\n";
  }

  /** A {@code qrels/spans.tsv} line; offsets are checked against the texts when it is read. */
  private static String span(Path file, Map<String, String> row) {
    String queryId = tsvId(file, required(file, row, "query-id", "query_id"), "spans");
    String docId = tsvId(file, required(file, row, "corpus-id", "corpus_id", "doc_id"), "spans");
    return queryId
        + "\t"
        + docId
        + "\t"
        + offset(file, required(file, row, "start"))
        + "\t"
        + offset(file, required(file, row, "end"))
        + "\n";
  }

  /** {@code id}, refused when a tab or line break would break the TSV file it goes to. */
  private static String tsvId(Path file, String id, String target) {
    if (id.contains("\t") || id.contains("\n") || id.contains("\r")) {
      throw new DatasetException(
          file + ": id '" + id + "' holds a tab or line break and cannot be written to " + target);
    }
    return id;
  }

  private static long offset(Path file, String value) {
    try {
      double number = Double.parseDouble(value.strip());
      if (number != Math.rint(number) || number < 0 || number > Integer.MAX_VALUE) {
        throw new DatasetException(file + ": span offset " + value + " is not a whole number");
      }
      return (long) number;
    } catch (NumberFormatException e) {
      throw new DatasetException(file + ": span offset '" + value + "' is not a number");
    }
  }

  private static int grade(Path file, String score) {
    if (score == null || score.isBlank()) {
      return 1;
    }
    try {
      double value = Double.parseDouble(score.strip());
      if (value != Math.rint(value) || Math.abs(value) > Integer.MAX_VALUE) {
        throw new DatasetException(file + ": qrels score " + score + " is not an integer grade");
      }
      return (int) value;
    } catch (NumberFormatException e) {
      throw new DatasetException(file + ": qrels score '" + score + "' is not a number");
    }
  }

  /** The first present column of {@code names}. */
  private static String required(Path file, Map<String, String> row, String... names) {
    for (String name : names) {
      String value = row.get(name);
      if (value != null) {
        return value;
      }
    }
    throw new DatasetException(
        file
            + ": a row has no "
            + String.join(" or ", names)
            + " column (columns: "
            + String.join(", ", row.keySet())
            + ")");
  }

  private static void writeJson(BufferedWriter out, ObjectNode node) {
    writeLine(out, node.toString() + "\n");
  }

  private static void writeLine(BufferedWriter out, String line) {
    try {
      out.write(line);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteQuietly(Path folder) {
    if (folder == null || !Files.exists(folder)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(folder)) {
      walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException ignored) {
      // a leftover partial folder is harmless: its name never matches a split
    }
  }
}
