package dev.tenbin.eval.tieaware;

import dev.tenbin.eval.metrics.JudgedQuery;
import dev.tenbin.eval.metrics.Metric;
import java.util.Arrays;

/**
 * Tie-aware values of a metric, in closed form: the expectation over every order of the documents
 * within each group of tied scores (McSherry and Najork, ECIR 2008), and the best and worst of
 * those orders. No order is enumerated.
 *
 * <p>Within a group of size m holding r relevant documents, each position holds a relevant
 * document with probability r/m and the group's mean gain in expectation; DCG and recall are linear
 * in those. Success and reciprocal rank depend on the first relevant position (hypergeometric),
 * and average precision on pairs within the group: E[rel_i · #rel before i in the group] =
 * (r/m) · a(r−1)/(m−1) at offset a, while the count of relevant documents in earlier groups is
 * fixed whatever the order.
 */
public final class TieAwareEvaluator {
  private TieAwareEvaluator() {}

  /**
   * @param metric the metric
   * @param grades grades in the evaluated (deterministic) order
   * @param groups tie groups over the same positions
   * @param judged the query's judgments
   */
  public static TieAwareValue evaluate(Metric metric, int[] grades, TieGroups groups, JudgedQuery judged) {
    double deterministic = metric.compute(grades, judged);
    if (!groups.hasTies()) {
      return TieAwareValue.of(deterministic, deterministic, deterministic, deterministic);
    }
    double best = metric.compute(sortedWithinGroups(grades, groups, true), judged);
    double worst = metric.compute(sortedWithinGroups(grades, groups, false), judged);
    return TieAwareValue.of(expected(metric, grades, groups, judged), worst, best, deterministic);
  }

  static int[] sortedWithinGroups(int[] grades, TieGroups groups, boolean bestFirst) {
    int[] sorted = grades.clone();
    for (int g = 0; g < groups.count(); g++) {
      int from = groups.start(g);
      int to = groups.end(g);
      for (int i = from; i < to; i++) {
        sorted[i] = Math.max(0, sorted[i]);
      }
      Arrays.sort(sorted, from, to);
      if (bestFirst) {
        for (int i = from, j = to - 1; i < j; i++, j--) {
          int t = sorted[i];
          sorted[i] = sorted[j];
          sorted[j] = t;
        }
      }
    }
    return sorted;
  }

  static double expected(Metric metric, int[] grades, TieGroups groups, JudgedQuery judged) {
    int k = metric.cutoff();
    return switch (metric.kind()) {
      case NDCG -> {
        double ideal = judged.idealDcg(k);
        if (ideal == 0) {
          yield 0;
        }
        double dcg = 0;
        for (int g = 0; g < groups.count(); g++) {
          int s = groups.start(g);
          int e = groups.end(g);
          if (s >= k) {
            break;
          }
          double meanGain = 0;
          for (int i = s; i < e; i++) {
            meanGain += Math.max(0, grades[i]);
          }
          meanGain /= (e - s);
          for (int i = s; i < Math.min(e, k); i++) {
            dcg += meanGain / log2(i + 2);
          }
        }
        yield dcg / ideal;
      }
      case RECALL -> {
        if (judged.relevantCount() == 0) {
          yield 0;
        }
        double found = 0;
        for (int g = 0; g < groups.count(); g++) {
          int s = groups.start(g);
          int e = groups.end(g);
          if (s >= k) {
            break;
          }
          found += (double) relevantIn(grades, s, e) * (Math.min(e, k) - s) / (e - s);
        }
        yield found / judged.relevantCount();
      }
      case SUCCESS -> {
        for (int g = 0; g < groups.count(); g++) {
          int s = groups.start(g);
          int e = groups.end(g);
          if (s >= k) {
            break;
          }
          int r = relevantIn(grades, s, e);
          if (r > 0) {
            yield 1 - probabilityNoneRelevant(e - s, r, Math.min(e, k) - s);
          }
        }
        yield 0;
      }
      case RECIPROCAL_RANK -> {
        for (int g = 0; g < groups.count(); g++) {
          int s = groups.start(g);
          int e = groups.end(g);
          if (s >= k) {
            break;
          }
          int m = e - s;
          int r = relevantIn(grades, s, e);
          if (r == 0) {
            continue;
          }
          double expected = 0;
          double noneYet = 1;
          for (int j = 0; j <= m - r && s + j < k; j++) {
            double firstHere = noneYet * r / (m - j);
            expected += firstHere / (s + j + 1);
            noneYet *= (double) (m - r - j) / (m - j);
          }
          yield expected;
        }
        yield 0;
      }
      case AVERAGE_PRECISION -> {
        if (judged.relevantCount() == 0) {
          yield 0;
        }
        double sum = 0;
        int relevantBefore = 0;
        for (int g = 0; g < groups.count(); g++) {
          int s = groups.start(g);
          int e = groups.end(g);
          if (s >= k) {
            break;
          }
          int m = e - s;
          int r = relevantIn(grades, s, e);
          for (int i = s; i < Math.min(e, k); i++) {
            int a = i - s;
            double pairs = m == 1 ? 0 : (double) a * (r - 1) / (m - 1);
            sum += ((double) r / m) * (1 + relevantBefore + pairs) / (i + 1);
          }
          relevantBefore += r;
        }
        yield sum / judged.relevantCount();
      }
    };
  }

  /** P(no relevant document among {@code slots} positions drawn from m holding r relevant). */
  private static double probabilityNoneRelevant(int m, int r, int slots) {
    double p = 1;
    for (int t = 0; t < slots; t++) {
      p *= (double) (m - r - t) / (m - t);
      if (p <= 0) {
        return 0;
      }
    }
    return p;
  }

  private static int relevantIn(int[] grades, int from, int to) {
    int r = 0;
    for (int i = from; i < to; i++) {
      if (grades[i] > 0) {
        r++;
      }
    }
    return r;
  }

  private static double log2(double x) {
    return Math.log(x) / Math.log(2);
  }
}
