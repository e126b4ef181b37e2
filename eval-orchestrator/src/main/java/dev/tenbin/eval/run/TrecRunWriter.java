package dev.tenbin.eval.run;

import dev.tenbin.eval.metrics.ScoredDoc;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes a TREC run file in the order given, ranks from 1. Scores are printed in the shortest form
 * that reads back to the same value (FP32 scores as floats), so ties and near-ties survive the
 * round trip; trec_eval parses them with atof.
 */
public final class TrecRunWriter {
  private TrecRunWriter() {}

  public static void write(Path file, Map<String, List<ScoredDoc>> run, String tag) throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (Map.Entry<String, List<ScoredDoc>> query : run.entrySet()) {
        int rank = 1;
        for (ScoredDoc doc : query.getValue()) {
          out.write(query.getKey() + " Q0 " + doc.docId() + " " + rank++ + " " + format(doc.score()) + " " + tag);
          out.newLine();
        }
      }
    }
  }

  static String format(double score) {
    float asFloat = (float) score;
    return (double) asFloat == score ? Float.toString(asFloat) : Double.toString(score);
  }
}
