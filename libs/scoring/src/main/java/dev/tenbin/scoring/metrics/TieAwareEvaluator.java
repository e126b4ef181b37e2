package dev.tenbin.scoring.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Tie-aware values of a metric (McSherry and Najork, "Computing information retrieval performance
 * measures efficiently in the presence of tied scores", ECIR 2008): the exact expectation over
 * every order of the documents within each group of tied scores, all orders equally likely, and the
 * best and worst of those orders. Everything is in closed form, linear in the length of the
 * ranking; no order is enumerated or sampled.
 *
 * <p>Notation: a group occupies positions [s, e) (0-based), m = e - s documents, r of them relevant
 * (grade &gt; 0), with grade sum G over its relevant documents; k is the cut-off, t = min(e, k) - s
 * the group's positions within the cut-off, R the query's number of relevant documents. Shuffling a
 * group uniformly, each of its positions holds a relevant document with probability r/m and has
 * expected gain G/m, and groups do not interact except through the count of relevant documents in
 * earlier groups, which is the same in every order.
 *
 * <ul>
 *   <li>nDCG@k: E[DCG@k] = sum over positions i &lt; k of (G/m) / log2(i + 2), over the ideal DCG
 *       (which does not depend on the order).
 *   <li>recall@k: sum over groups of r·t/m, over R.
 *   <li>precision@k: the same expected count of relevant documents within the cut-off, sum over
 *       groups of r·t/m, over k.
 *   <li>success@k: only the first group with r &gt; 0 matters; it succeeds unless all t of its
 *       positions within the cut-off are non-relevant, which has the hypergeometric probability
 *       C(m-r, t)/C(m, t) = prod over j &lt; t of (m-r-j)/(m-j).
 *   <li>reciprocal rank@k: in the first group with r &gt; 0 the first relevant document is at
 *       offset j with probability prod over i &lt; j of (m-r-i)/(m-i), times r/(m-j); the
 *       expectation sums that over s + j &lt; k, divided by the rank s + j + 1.
 *   <li>AP@k: each position i &lt; k at offset a = i - s in its group adds rel_i·(B + 1 + X_i)/(i +
 *       1), where B counts the relevant documents of earlier groups and X_i those at the a earlier
 *       positions of the same group; E[rel_i] = r/m and E[rel_i·X_i] = a·r(r-1)/(m(m-1)), which is
 *       linear, so E[AP@k] = (1/R)·sum over i &lt; k of (r/m)·(B + 1 + a(r-1)/(m-1))/(i + 1).
 * </ul>
 *
 * <p>The best order puts the highest grades first within each group and the worst the lowest first:
 * swapping a lower grade ahead of a higher one never raises any of these metrics, as their
 * discounts and precisions do not grow with the rank. Both orders are measured directly.
 */
public final class TieAwareEvaluator {
  private TieAwareEvaluator() {}

  /**
   * The tie-aware value of a metric on one ranking.
   *
   * @param metric the metric
   * @param grades grades in the evaluated (deterministic) order; 0 or less is not relevant
   * @param groups tie groups over the same positions
   * @param judged the query's judgments
   */
  public static TieAwareValue evaluate(
      Metric metric, int[] grades, TieGroups groups, JudgedQuery judged) {
    return evaluate(List.of(metric), grades, groups, judged).getFirst();
  }

  /**
   * The tie-aware values of several metrics on one ranking, in the order of the metrics. The best
   * and the worst order are made once for all of them, and only as deep as the deepest cut-off:
   * each group that starts within it is sorted whole (a group straddling the cut-off brings its
   * best grades forward), the groups after it are left as they are, since no metric looks there.
   *
   * @param metrics the metrics
   * @param grades grades in the evaluated (deterministic) order; 0 or less is not relevant
   * @param groups tie groups over the same positions
   * @param judged the query's judgments
   */
  public static List<TieAwareValue> evaluate(
      List<Metric> metrics, int[] grades, TieGroups groups, JudgedQuery judged) {
    if (groups.size() != grades.length) {
      throw new IllegalArgumentException(
          "tie groups cover " + groups.size() + " positions, the ranking has " + grades.length);
    }
    int depth = metrics.stream().mapToInt(Metric::cutoff).max().orElse(0);
    int[] best = groups.hasTies() ? sortedWithinGroups(grades, groups, depth, true) : grades;
    int[] worst = groups.hasTies() ? sortedWithinGroups(grades, groups, depth, false) : grades;
    List<TieAwareValue> values = new ArrayList<>(metrics.size());
    for (Metric metric : metrics) {
      values.add(value(metric, grades, groups, judged, best, worst));
    }
    return values;
  }

  private static TieAwareValue value(
      Metric metric, int[] grades, TieGroups groups, JudgedQuery judged, int[] best, int[] worst) {
    double deterministic = metric.compute(grades, judged);
    if (!groups.hasTies()) {
      return new TieAwareValue(deterministic, deterministic, deterministic, 0, 0);
    }
    double max = metric.compute(best, judged);
    double min = metric.compute(worst, judged);
    if (min == max) {
      // Every order scores the same (e.g. a group of non-relevant documents only).
      return new TieAwareValue(min, min, max, 0, deterministic - min);
    }
    double expected = Math.clamp(expected(metric, grades, groups, judged), min, max);
    return TieAwareValue.of(expected, min, max, deterministic);
  }

  /**
   * Grades re-ordered within each group that starts before {@code depth}: highest first ({@code
   * bestFirst}) or lowest first; later positions as given.
   */
  static int[] sortedWithinGroups(int[] grades, TieGroups groups, int depth, boolean bestFirst) {
    int[] sorted = grades.clone();
    for (int g = 0; g < groups.count() && groups.start(g) < depth; g++) {
      int from = groups.start(g);
      int to = groups.end(g);
      if (to - from < 2) {
        continue;
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
        yield ideal == 0 ? 0 : expectedDcg(grades, groups, k) / ideal;
      }
      case RECALL ->
          judged.relevantCount() == 0
              ? 0
              : expectedRelevantWithin(grades, groups, k) / judged.relevantCount();
      case PRECISION -> expectedRelevantWithin(grades, groups, k) / k;
      case SUCCESS -> expectedSuccess(grades, groups, k);
      case RECIPROCAL_RANK -> expectedReciprocalRank(grades, groups, k);
      case AVERAGE_PRECISION ->
          judged.relevantCount() == 0
              ? 0
              : expectedPrecisionSum(grades, groups, k) / judged.relevantCount();
    };
  }

  private static double expectedDcg(int[] grades, TieGroups groups, int k) {
    double dcg = 0;
    for (int g = 0; g < groups.count() && groups.start(g) < k; g++) {
      int s = groups.start(g);
      int e = groups.end(g);
      double meanGain = (double) gainSum(grades, s, e) / (e - s);
      if (meanGain > 0) {
        for (int i = s; i < Math.min(e, k); i++) {
          dcg += meanGain / DcgDiscount.divisor(i);
        }
      }
    }
    return dcg;
  }

  private static double expectedRelevantWithin(int[] grades, TieGroups groups, int k) {
    double found = 0;
    for (int g = 0; g < groups.count() && groups.start(g) < k; g++) {
      int s = groups.start(g);
      int e = groups.end(g);
      found += (double) relevantIn(grades, s, e) * (Math.min(e, k) - s) / (e - s);
    }
    return found;
  }

  private static double expectedSuccess(int[] grades, TieGroups groups, int k) {
    for (int g = 0; g < groups.count() && groups.start(g) < k; g++) {
      int s = groups.start(g);
      int e = groups.end(g);
      int r = relevantIn(grades, s, e);
      if (r > 0) {
        int m = e - s;
        double noneRelevant = 1;
        for (int j = 0; j < Math.min(e, k) - s; j++) {
          noneRelevant *= (double) (m - r - j) / (m - j);
        }
        return 1 - noneRelevant;
      }
    }
    return 0;
  }

  private static double expectedReciprocalRank(int[] grades, TieGroups groups, int k) {
    for (int g = 0; g < groups.count() && groups.start(g) < k; g++) {
      int s = groups.start(g);
      int e = groups.end(g);
      int r = relevantIn(grades, s, e);
      if (r > 0) {
        int m = e - s;
        double expected = 0;
        double noneYet = 1;
        for (int j = 0; j <= m - r && s + j < k; j++) {
          expected += noneYet * r / (m - j) / (s + j + 1);
          noneYet *= (double) (m - r - j) / (m - j);
        }
        return expected;
      }
    }
    return 0;
  }

  private static double expectedPrecisionSum(int[] grades, TieGroups groups, int k) {
    double sum = 0;
    int relevantBefore = 0;
    for (int g = 0; g < groups.count() && groups.start(g) < k; g++) {
      int s = groups.start(g);
      int e = groups.end(g);
      int m = e - s;
      int r = relevantIn(grades, s, e);
      if (r > 0) {
        for (int i = s; i < Math.min(e, k); i++) {
          double relevantAheadInGroup = m == 1 ? 0 : (double) (i - s) * (r - 1) / (m - 1);
          sum += (double) r / m * (relevantBefore + 1 + relevantAheadInGroup) / (i + 1);
        }
      }
      relevantBefore += r;
    }
    return sum;
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

  private static long gainSum(int[] grades, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += Math.max(0, grades[i]);
    }
    return sum;
  }
}
