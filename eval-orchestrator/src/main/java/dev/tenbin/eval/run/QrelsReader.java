package dev.tenbin.eval.run;

import dev.tenbin.eval.metrics.Qrels;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads qrels in TREC form ({@code qid iter docid grade}) or BEIR form ({@code query-id corpus-id
 * score}, tab separated, usually with a header line), detected from the column count. A repeated
 * judgment keeps the last grade.
 */
public final class QrelsReader {
  private QrelsReader() {}

  /** @throws IllegalArgumentException naming the file and line of anything malformed */
  public static Qrels read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("qrels file not found: " + file);
    }
    Map<String, Map<String, Integer>> judgments = new LinkedHashMap<>();
    int lineNumber = 0;
    int columns = -1;
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        String[] parts = line.trim().split("\\s+");
        if (columns < 0) {
          if (parts.length == 3 && !isInteger(parts[2])) {
            columns = 3; // a BEIR header such as "query-id corpus-id score"
            continue;
          }
          columns = parts.length;
          if (columns != 3 && columns != 4) {
            throw new IllegalArgumentException(
                file + " line " + lineNumber + ": expected 3 (BEIR) or 4 (TREC) columns, got " + parts.length);
          }
        }
        if (parts.length != columns) {
          throw new IllegalArgumentException(
              file + " line " + lineNumber + ": expected " + columns + " columns, got " + parts.length);
        }
        String grade = parts[columns - 1];
        if (!isInteger(grade)) {
          throw new IllegalArgumentException(
              file + " line " + lineNumber + ": grade '" + grade + "' is not an integer");
        }
        String docId = columns == 3 ? parts[1] : parts[2];
        judgments.computeIfAbsent(parts[0], q -> new LinkedHashMap<>()).put(docId, Integer.parseInt(grade));
      }
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new IllegalArgumentException(file + " line " + (lineNumber + 1) + ": not valid UTF-8");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    if (judgments.isEmpty()) {
      throw new IllegalArgumentException("no judgments in " + file);
    }
    return Qrels.of(judgments);
  }

  private static boolean isInteger(String value) {
    try {
      Integer.parseInt(value);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
