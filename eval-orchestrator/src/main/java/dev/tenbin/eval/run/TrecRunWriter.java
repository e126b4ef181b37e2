package dev.tenbin.eval.run;

import dev.tenbin.eval.metrics.ScoredDoc;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Writes TREC run files: one line {@code qid Q0 docid rank score tag} per document, single spaces,
 * {@code \n} line ends, queries and documents in the order given, ranks from 1.
 *
 * <p>Score format: a score that is exactly a float (every FP32 score of Tenbin's services) is
 * printed with {@link Float#toString(float)}, any other with {@link Double#toString(double)}: the
 * shortest decimal that reads back to the same value, e.g. {@code 2.5946288}, {@code 1.0E-7}. Read
 * back (by {@link TrecRunReader}, or by trec_eval's {@code atof}, then narrowed to float) it gives
 * the same score bits, so ties and one-ulp differences survive the round trip and trec_eval orders
 * the file as Tenbin ordered it, up to its docno tie-break.
 *
 * <p>Only what reads back is written: ids and the tag follow {@link RecordIds}, a query id does
 * not start with {@code #} (a comment line) and scores are finite; anything else is an {@link
 * IllegalArgumentException} naming it.
 */
public final class TrecRunWriter {
  private TrecRunWriter() {}

  public static void write(Path file, Map<String, List<ScoredDoc>> run, String tag) throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(out, run, tag);
    }
  }

  /** Writes to an open writer, which is left open. */
  public static void write(Writer out, Map<String, List<ScoredDoc>> run, String tag) throws IOException {
    requireToken("tag", tag);
    StringBuilder line = new StringBuilder();
    for (Map.Entry<String, List<ScoredDoc>> query : run.entrySet()) {
      requireToken("query id", query.getKey());
      if (query.getKey().startsWith("#")) {
        throw new IllegalArgumentException("query id '" + query.getKey() + "' starts with '#', which marks a comment line");
      }
      int rank = 1;
      for (ScoredDoc doc : query.getValue()) {
        requireToken("doc id", doc.docId());
        if (!Double.isFinite(doc.score())) {
          throw new IllegalArgumentException("score " + doc.score() + " of doc id '" + doc.docId() + "' is not finite");
        }
        line.setLength(0);
        line.append(query.getKey()).append(" Q0 ").append(doc.docId()).append(' ').append(rank++)
            .append(' ').append(format(doc.score())).append(' ').append(tag).append('\n');
        out.write(line.toString());
      }
    }
  }

  /** The shortest decimal that reads back to the score, as a float when the score is one. */
  static String format(double score) {
    float asFloat = (float) score;
    return (double) asFloat == score ? Float.toString(asFloat) : Double.toString(score);
  }

  private static void requireToken(String what, String value) {
    String problem = RecordIds.problem(value);
    if (problem != null) {
      throw new IllegalArgumentException(what + " '" + value + "' " + problem);
    }
  }
}
