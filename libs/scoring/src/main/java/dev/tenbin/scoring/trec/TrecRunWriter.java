package dev.tenbin.scoring.trec;

import dev.tenbin.scoring.metrics.ScoredDoc;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes TREC run files: one line {@code qid Q0 docid rank score tag} per document, single spaces,
 * {@code \n} line ends, queries and documents in the order given, ranks from 1.
 *
 * <p>Tie-broken scores: trec_eval ignores the rank column and re-sorts each query by score
 * descending, equal scores by docno <em>descending</em>, while Tenbin orders equal scores by doc id
 * ascending. So that trec_eval reads the file in the order given (and scores it as Tenbin did), the
 * written scores strictly decrease down each query: the first document's score is written as it is;
 * each next one is written as it is when it is below the score written on the line above (as C's
 * {@code <} compares, so -0.0 ties 0.0), otherwise as the largest value strictly below that written
 * score ({@link Math#nextDown}). The step is one FP32 ulp when every score of the query is an FP32
 * value (every score of Tenbin's services; the file then holds FP32 values only, so a reader that
 * narrows to float orders it the same), one FP64 ulp otherwise. Untied scores in descending order
 * are written unchanged; the stored cells keep the true scores (and the tie-aware metrics computed
 * from them).
 *
 * <p>Score format: a score that is exactly a float is printed with {@link Float#toString(float)},
 * any other with {@link Double#toString(double)}: the shortest decimal that reads back to the same
 * value, e.g. {@code 2.5946288}, {@code 1.0E-7}. Read back (by {@link TrecRunReader}, or by
 * trec_eval's {@code atof}) it gives the same bits as written.
 *
 * <p>Only what reads back is written: ids and the tag follow {@link RecordIds}, a query id does not
 * start with {@code #} (a comment line) and scores are finite; anything else is an {@link
 * IllegalArgumentException} naming it.
 */
public final class TrecRunWriter {
  private TrecRunWriter() {}

  public static void write(Path file, Map<String, List<ScoredDoc>> run, String tag)
      throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(out, run, tag);
    }
  }

  /** Writes to an open writer, which is left open. */
  public static void write(Writer out, Map<String, List<ScoredDoc>> run, String tag)
      throws IOException {
    requireToken("tag", tag);
    StringBuilder line = new StringBuilder();
    for (Map.Entry<String, List<ScoredDoc>> query : run.entrySet()) {
      requireToken("query id", query.getKey());
      if (query.getKey().startsWith("#")) {
        throw new IllegalArgumentException(
            "query id '" + query.getKey() + "' starts with '#', which marks a comment line");
      }
      for (ScoredDoc doc : query.getValue()) {
        requireToken("doc id", doc.docId());
        if (!Double.isFinite(doc.score())) {
          throw new IllegalArgumentException(
              "score " + doc.score() + " of doc id '" + doc.docId() + "' is not finite");
        }
      }
      int rank = 1;
      for (ScoredDoc doc : tieBroken(query.getValue())) {
        line.setLength(0);
        line.append(query.getKey())
            .append(" Q0 ")
            .append(doc.docId())
            .append(' ')
            .append(rank++)
            .append(' ')
            .append(format(doc.score()))
            .append(' ')
            .append(tag)
            .append('\n');
        out.write(line.toString());
      }
    }
  }

  /**
   * The scores as written: the same documents in the same order, scores strictly decreasing by the
   * rule of the class comment, so any evaluator that sorts by score alone keeps this order.
   */
  public static List<ScoredDoc> tieBroken(List<ScoredDoc> ranking) {
    boolean fp32 = ranking.stream().allMatch(doc -> (double) (float) doc.score() == doc.score());
    List<ScoredDoc> written = new ArrayList<>(ranking.size());
    double above = Double.NaN;
    for (ScoredDoc doc : ranking) {
      double score = doc.score();
      if (!written.isEmpty() && !(score < above)) {
        score = fp32 ? Math.nextDown((float) above) : Math.nextDown(above);
        if (Double.isInfinite(score)) {
          throw new IllegalArgumentException(
              "no finite score below "
                  + above
                  + " is left to break the tie of doc id '"
                  + doc.docId()
                  + "'");
        }
      }
      written.add(score == doc.score() ? doc : new ScoredDoc(doc.docId(), score));
      above = score;
    }
    return written;
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
