package dev.tenbin.scoring.metrics;

import java.util.Arrays;
import java.util.Collection;

/**
 * What the metrics need of one query's judgments: how many documents are relevant (grade 1 or more,
 * trec_eval's relevance level 1) and the grades of the ideal ranking.
 */
public final class JudgedQuery {
  private final int[] idealGrades;

  /**
   * @param grades every judged grade of the query; grades of 0 or less are not relevant
   */
  public JudgedQuery(Collection<Integer> grades) {
    int[] relevant = grades.stream().mapToInt(Integer::intValue).filter(g -> g > 0).toArray();
    Arrays.sort(relevant);
    this.idealGrades = new int[relevant.length];
    for (int i = 0; i < relevant.length; i++) {
      idealGrades[i] = relevant[relevant.length - 1 - i];
    }
  }

  /** The judgments of a query in the qrels; no relevant documents when it is not judged. */
  public static JudgedQuery of(Qrels qrels, String queryId) {
    return new JudgedQuery(qrels.judgments(queryId).values());
  }

  public int relevantCount() {
    return idealGrades.length;
  }

  /**
   * DCG of the best possible ranking cut at k: every relevant grade of the judgments, highest
   * first, whether or not the run retrieved it.
   */
  public double idealDcg(int k) {
    double ideal = 0;
    for (int i = 0; i < Math.min(k, idealGrades.length); i++) {
      ideal += idealGrades[i] / DcgDiscount.divisor(i);
    }
    return ideal;
  }
}
