package dev.tenbin.eval.metrics;

/**
 * One cut-off metric as {@code trec_eval} defines it, computed from the grades of a ranking in
 * order.
 *
 * @param name the reported name, e.g. "ndcg@10"
 * @param kind what is measured
 * @param cutoff the depth k
 */
public record Metric(String name, Kind kind, int cutoff) {
  /** The measures Tenbin reports. */
  public enum Kind {
    /** {@code ndcg_cut}: gain = grade (> 0), discount log2(rank + 1), ideal from all judgments. */
    NDCG,
    /** {@code recall}: relevant retrieved in the top k over all relevant. */
    RECALL,
    /** {@code success} (accuracy): 1 when a relevant document is in the top k. */
    SUCCESS,
    /** Reciprocal rank of the first relevant document within the top k, else 0. */
    RECIPROCAL_RANK,
    /** {@code map_cut}: sum of precision at each relevant rank within k, over all relevant. */
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
   * @param grades grade of the document at each rank (0 for unjudged or non-relevant)
   * @param judged the query's judgments, for the number of relevant documents and the ideal DCG
   */
  public double compute(int[] grades, JudgedQuery judged) {
    int depth = Math.min(cutoff, grades.length);
    switch (kind) {
      case NDCG -> {
        double ideal = judged.idealDcg(cutoff);
        if (ideal == 0) {
          return 0;
        }
        double dcg = 0;
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            dcg += grades[i] / log2(i + 2);
          }
        }
        return dcg / ideal;
      }
      case RECALL -> {
        if (judged.relevantCount() == 0) {
          return 0;
        }
        int found = 0;
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            found++;
          }
        }
        return (double) found / judged.relevantCount();
      }
      case SUCCESS -> {
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            return 1;
          }
        }
        return 0;
      }
      case RECIPROCAL_RANK -> {
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            return 1.0 / (i + 1);
          }
        }
        return 0;
      }
      case AVERAGE_PRECISION -> {
        if (judged.relevantCount() == 0) {
          return 0;
        }
        double sum = 0;
        int found = 0;
        for (int i = 0; i < depth; i++) {
          if (grades[i] > 0) {
            found++;
            sum += (double) found / (i + 1);
          }
        }
        return sum / judged.relevantCount();
      }
      default -> throw new IllegalStateException(kind.toString());
    }
  }

  static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }
}
