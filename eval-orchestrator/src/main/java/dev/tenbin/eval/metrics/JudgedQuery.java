package dev.tenbin.eval.metrics;

import java.util.Arrays;

/** What the metrics need to know of one query's judgments: relevant count and ideal gains. */
public final class JudgedQuery {
  private final int relevantCount;
  private final int[] idealGrades;

  public JudgedQuery(Iterable<Integer> grades) {
    int count = 0;
    int[] buffer = new int[16];
    for (int grade : grades) {
      if (grade > 0) {
        if (count == buffer.length) {
          buffer = Arrays.copyOf(buffer, count * 2);
        }
        buffer[count++] = grade;
      }
    }
    int[] ideal = Arrays.copyOf(buffer, count);
    Arrays.sort(ideal);
    for (int i = 0, j = ideal.length - 1; i < j; i++, j--) {
      int t = ideal[i];
      ideal[i] = ideal[j];
      ideal[j] = t;
    }
    this.relevantCount = count;
    this.idealGrades = ideal;
  }

  public int relevantCount() {
    return relevantCount;
  }

  /** DCG of the best possible ranking, cut at k. */
  public double idealDcg(int k) {
    double ideal = 0;
    for (int i = 0; i < Math.min(k, idealGrades.length); i++) {
      ideal += idealGrades[i] / Metric.log2(i + 2);
    }
    return ideal;
  }
}
