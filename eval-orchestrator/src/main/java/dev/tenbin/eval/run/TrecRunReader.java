package dev.tenbin.eval.run;

import dev.tenbin.eval.metrics.ScoredDoc;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a TREC run file: {@code qid Q0 docid rank score tag}, six whitespace-separated columns.
 * Blank lines and lines starting with {@code #} are skipped, as trec_eval skips them. The rank
 * column must be present but is not used; ids follow {@link RecordIds}: trec_eval orders by score
 * (see {@code RunOrder}). The score is parsed as a double, as trec_eval's {@code atof} does, and
 * must be finite.
 */
public final class TrecRunReader {
  private TrecRunReader() {}

  /**
   * Query id to documents in file order, queries in the order first seen. Repeated documents are
   * kept here; evaluation keeps the first of each.
   *
   * @throws InputFileException naming the file (and line) of anything missing or malformed
   */
  public static Map<String, List<ScoredDoc>> read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw InputFileException.of(file, "run file not found");
    }
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    int lineNumber = 0;
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        String stripped = line.strip();
        if (stripped.isEmpty() || stripped.startsWith("#")) {
          continue;
        }
        String[] parts = stripped.split("\\s+");
        if (parts.length != 6) {
          throw InputFileException.atLine(
              file,
              lineNumber,
              "expected 6 columns (qid Q0 docid rank score tag), got " + parts.length);
        }
        requireId(file, lineNumber, "query id", parts[0]);
        requireId(file, lineNumber, "document id", parts[2]);
        double score = parseScore(file, lineNumber, parts[4]);
        run.computeIfAbsent(parts[0], q -> new ArrayList<>()).add(new ScoredDoc(parts[2], score));
      }
    } catch (CharacterCodingException e) {
      throw InputFileException.atLine(file, lineNumber + 1, "not valid UTF-8");
    } catch (IOException e) {
      throw InputFileException.of(file, "cannot read run file (" + e.getMessage() + ")");
    }
    return run;
  }

  private static void requireId(Path file, int lineNumber, String what, String id) {
    String problem = RecordIds.problem(id);
    if (problem != null) {
      throw InputFileException.atLine(file, lineNumber, what + " " + problem);
    }
  }

  private static double parseScore(Path file, int lineNumber, String text) {
    double score;
    try {
      score = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw InputFileException.atLine(file, lineNumber, "score '" + text + "' is not a number");
    }
    if (!Double.isFinite(score)) {
      throw InputFileException.atLine(file, lineNumber, "score '" + text + "' is not finite");
    }
    return score;
  }
}
