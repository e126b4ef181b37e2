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
  private static final int COLUMNS = 6;

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
      int[] bounds = new int[2 * COLUMNS];
      String lastQueryId = null;
      List<ScoredDoc> lastRanking = null;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        int columns = columns(line, bounds);
        if (columns == 0 || line.charAt(bounds[0]) == '#') {
          continue;
        }
        if (columns != COLUMNS) {
          throw InputFileException.atLine(
              file,
              lineNumber,
              "expected 6 columns (qid Q0 docid rank score tag), got " + columns);
        }
        List<ScoredDoc> ranking;
        if (lastQueryId != null
            && lastQueryId.length() == bounds[1] - bounds[0]
            && line.startsWith(lastQueryId, bounds[0])) {
          ranking = lastRanking;
        } else {
          String queryId = line.substring(bounds[0], bounds[1]);
          requireId(file, lineNumber, "query id", queryId);
          ranking = run.computeIfAbsent(queryId, q -> new ArrayList<>());
          lastQueryId = queryId;
          lastRanking = ranking;
        }
        String docId = line.substring(bounds[4], bounds[5]);
        requireId(file, lineNumber, "document id", docId);
        double score = parseScore(file, lineNumber, line.substring(bounds[8], bounds[9]));
        ranking.add(new ScoredDoc(docId, score));
      }
    } catch (CharacterCodingException e) {
      throw InputFileException.atLine(file, lineNumber + 1, "not valid UTF-8");
    } catch (IOException e) {
      throw InputFileException.of(file, "cannot read run file (" + e.getMessage() + ")");
    }
    return run;
  }

  /**
   * Splits a line as {@code line.strip().split("\\s+")} would, without building the parts: the
   * line is stripped of leading and trailing whitespace ({@link Character#isWhitespace}) and the
   * rest split at runs of ASCII whitespace (space, tab, newline, vertical tab, form feed, carriage
   * return). The [start, end) bounds of the first {@code bounds.length / 2} columns are stored.
   *
   * @return the number of columns, 0 for a blank line
   */
  static int columns(String line, int[] bounds) {
    int from = 0;
    int to = line.length();
    while (from < to && isStripped(line.codePointAt(from))) {
      from += Character.charCount(line.codePointAt(from));
    }
    while (to > from && isStripped(line.codePointBefore(to))) {
      to -= Character.charCount(line.codePointBefore(to));
    }
    int columns = 0;
    int i = from;
    while (i < to) {
      int start = i;
      while (i < to && !isSeparator(line.charAt(i))) {
        i++;
      }
      if (2 * columns < bounds.length) {
        bounds[2 * columns] = start;
        bounds[2 * columns + 1] = i;
      }
      columns++;
      while (i < to && isSeparator(line.charAt(i))) {
        i++;
      }
    }
    return columns;
  }

  private static boolean isStripped(int codePoint) {
    return Character.isWhitespace(codePoint);
  }

  /** The characters of the regex {@code \\s}. */
  private static boolean isSeparator(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
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
