package dev.tenbin.eval.run;

import dev.tenbin.eval.metrics.ScoredDoc;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a TREC run file: {@code qid Q0 docid rank score tag}, whitespace separated. */
public final class TrecRunReader {
  private TrecRunReader() {}

  /** Query id to documents in file order (the rank column is ignored, as trec_eval does). */
  public static Map<String, List<ScoredDoc>> read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException("run file not found: " + file);
    }
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    int lineNumber = 0;
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        String[] parts = line.trim().split("\\s+");
        if (parts.length != 6) {
          throw new IllegalArgumentException(
              file + " line " + lineNumber + ": expected 6 columns (qid Q0 docid rank score tag), got "
                  + parts.length);
        }
        double score;
        try {
          score = Double.parseDouble(parts[4]);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              file + " line " + lineNumber + ": score '" + parts[4] + "' is not a number");
        }
        if (!Double.isFinite(score)) {
          throw new IllegalArgumentException(file + " line " + lineNumber + ": score must be finite");
        }
        run.computeIfAbsent(parts[0], q -> new ArrayList<>()).add(new ScoredDoc(parts[2], score));
      }
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new IllegalArgumentException(file + " line " + (lineNumber + 1) + ": not valid UTF-8");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    return run;
  }
}
