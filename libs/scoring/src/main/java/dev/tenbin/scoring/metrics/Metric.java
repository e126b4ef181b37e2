package dev.tenbin.scoring.metrics;

/**
 * One cut-off metric as {@code trec_eval} 10 defines it (relevance level 1: grades of 0 or less,
 * and unjudged documents, are not relevant), computed from the grades of a ranking in order.
 *
 * @param name the reported name, e.g. "ndcg@10"
 * @param kind what is measured
 * @param cutoff the depth k: only the first k positions of the ranking count
 */
public record Metric(String name, Kind kind, int cutoff) {
  /** The measures Tenbin reports. */
  public enum Kind {
    /**
     * {@code ndcg_cut.k}: DCG = sum over the top k of grade / log2(rank + 1) for grades above 0,
     * over the DCG of all judged relevant grades sorted descending and cut at k; 0 when that ideal
     * is 0.
     */
    NDCG,
    /** {@code recall.k}: relevant documents in the top k over all relevant; 0 when none is. */
    RECALL,
    /**
     * {@code P.k}: relevant documents in the top k over k, a ranking shorter than k counting its
     * missing positions as non-relevant (so the denominator is always k, as in trec_eval).
     */
    PRECISION,
    /** {@code success.k} (accuracy@k): 1 when a relevant document is in the top k, else 0. */
    SUCCESS,
    /** Reciprocal rank of the first relevant document within the top k, else 0 (MRR@k). */
    RECIPROCAL_RANK,
    /**
     * {@code map_cut.k}: the sum of precision@r over the ranks r &le; k holding a relevant
     * document, over the number of relevant documents; 0 when none is.
     */
    AVERAGE_PRECISION
  }

  public Metric {
    if (cutoff < 1) {
      throw new IllegalArgumentException("cutoff must be positive, got " + cutoff);
    }
  }

  /**
   * The metric of one ranking.
   *
   * @param grades grade of the document at each position (0 or less for unjudged or non-relevant)
   * @param judged the query's judgments, for the number of relevant documents and the ideal DCG
   */
  public double compute(int[] grades, JudgedQuery judged) {
    int depth = Math.min(cutoff, grades.length);
    return switch (kind) {
      case NDCG -> {
        double ideal = judged.idealDcg(cutoff);
        if (ideal == 0) {
          yield 0;
        }
        double dcg = 0;
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            dcg += grades[i] / DcgDiscount.divisor(i);
          }
        }
        yield dcg / ideal;
      }
      case RECALL -> {
        if (judged.relevantCount() == 0) {
          yield 0;
        }
        int found = 0;
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            found++;
          }
        }
        yield (double) found / judged.relevantCount();
      }
      case PRECISION -> {
        int found = 0;
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            found++;
          }
        }
        yield (double) found / cutoff;
      }
      case SUCCESS -> {
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            yield 1;
          }
        }
        yield 0;
      }
      case RECIPROCAL_RANK -> {
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            yield 1.0 / (i + 1);
          }
        }
        yield 0;
      }
      case AVERAGE_PRECISION -> {
        if (judged.relevantCount() == 0) {
          yield 0;
        }
        double sum = 0;
        int found = 0;
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            found++;
            sum += (double) found / (i + 1);
          }
        }
        yield sum / judged.relevantCount();
      }
    };
  }
}
