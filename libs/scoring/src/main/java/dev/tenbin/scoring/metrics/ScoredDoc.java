package dev.tenbin.scoring.metrics;

import java.util.Objects;

/**
 * A retrieved document and its score.
 *
 * <p>The score is a {@code double} because {@code trec_eval} 10 reads the score column of a run
 * file with {@code atof} into a double and orders by it, so a run file is evaluated at the
 * precision it was written with. Tenbin's services score in FP32, and a float widens to a double
 * exactly: two FP32 scores are tied here exactly when they are tied as floats.
 *
 * @param docId the document id (trec_eval's docno)
 * @param score the score, higher first; never NaN
 */
public record ScoredDoc(String docId, double score) {
  public ScoredDoc {
    Objects.requireNonNull(docId, "docId");
    if (Double.isNaN(score)) {
      throw new IllegalArgumentException("score of document " + docId + " is NaN");
    }
  }
}
