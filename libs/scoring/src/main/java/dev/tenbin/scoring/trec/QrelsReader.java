package dev.tenbin.scoring.trec;

import dev.tenbin.scoring.metrics.Qrels;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads relevance judgments in either of two forms, told apart by the column count of the first
 * line:
 *
 * <ul>
 *   <li>TREC qrels: {@code qid iter docid grade}, whitespace separated (the iter column is
 *       ignored);
 *   <li>BEIR tsv: {@code query-id corpus-id score}, with or without the header line {@code
 *       query-id\tcorpus-id\tscore} (a first line whose third column is not an integer).
 * </ul>
 *
 * <p>Ids follow {@link RecordIds}. Grades are integers; 1 or more is relevant and 0 or less is
 * judged non-relevant. Blank lines are skipped. A query with any judgment line counts as judged,
 * even when all its grades are 0. A document judged twice for one query keeps its last grade
 * (trec_eval refuses such files).
 */
public final class QrelsReader {
  private QrelsReader() {}

  /**
   * @throws InputFileException naming the file (and line) of anything missing or malformed
   */
  public static Qrels read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw InputFileException.of(file, "qrels file not found");
    }
    Map<String, Map<String, Integer>> judgments = new LinkedHashMap<>();
    int lineNumber = 0;
    int columns = -1;
    int[] bounds = new int[8];
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        int found = dev.tenbin.scoring.text.WhitespaceSplit.columns(line, bounds);
        String[] parts = new String[Math.min(found, 4)];
        for (int c = 0; c < parts.length; c++) {
          parts[c] = line.substring(bounds[2 * c], bounds[2 * c + 1]);
        }
        if (columns < 0) {
          if (parts.length == 3 && parseGrade(parts[2]) == null) {
            columns = 3; // the BEIR header "query-id corpus-id score"
            continue;
          }
          if (found != 3 && found != 4) {
            throw InputFileException.atLine(
                file,
                lineNumber,
                "expected 4 columns (qid iter docid grade) or 3 (query-id corpus-id score), got "
                    + found);
          }
          columns = found;
        }
        if (found != columns) {
          throw InputFileException.atLine(
              file,
              lineNumber,
              "expected " + columns + " columns like the first line, got " + found);
        }
        String gradeText = parts[columns - 1];
        Integer grade = parseGrade(gradeText);
        if (grade == null) {
          throw InputFileException.atLine(
              file, lineNumber, "grade '" + gradeText + "' is not an integer");
        }
        String docId = parts[columns - 2];
        requireId(file, lineNumber, "query id", parts[0]);
        requireId(file, lineNumber, "document id", docId);
        judgments.computeIfAbsent(parts[0], q -> new LinkedHashMap<>()).put(docId, grade);
      }
    } catch (CharacterCodingException e) {
      throw InputFileException.atLine(file, lineNumber + 1, "not valid UTF-8");
    } catch (IOException e) {
      throw InputFileException.of(file, "cannot read qrels file (" + e.getMessage() + ")");
    }
    if (judgments.isEmpty()) {
      throw InputFileException.of(file, "no judgments in qrels file");
    }
    return Qrels.of(judgments);
  }

  private static void requireId(Path file, int lineNumber, String what, String id) {
    String problem = RecordIds.problem(id);
    if (problem != null) {
      throw InputFileException.atLine(file, lineNumber, what + " " + problem);
    }
  }

  private static Integer parseGrade(String text) {
    try {
      return Integer.valueOf(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
