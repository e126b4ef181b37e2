package dev.tenbin.scoring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The closed forms against brute force: every order of the documents within each tied group is
 * enumerated and measured, and the expectation, min and max must match, for the ten reported
 * metrics (precision@10 among them) and for every kind of metric at generic cut-offs.
 */
class TieAwarePropertiesTest {
  private static final int[] GENERIC_CUTOFFS = {1, 2, 3, 5, 8};

  /**
   * A small ranking: document i has score {@code scores[i]} (few distinct values, so many ties) and
   * grade {@code grades[i]} (-1 to 3); {@code unretrieved} more relevant grades are judged but not
   * retrieved.
   */
  record Case(int[] scores, int[] grades, int[] unretrieved) {
    @Override
    public String toString() {
      return "scores "
          + Arrays.toString(scores)
          + " grades "
          + Arrays.toString(grades)
          + " unretrieved "
          + Arrays.toString(unretrieved);
    }
  }

  @Provide
  Arbitrary<Case> rankingsWithTies() {
    return Arbitraries.integers()
        .between(1, 8)
        .flatMap(
            n ->
                Combinators.combine(
                        Arbitraries.integers().between(0, 2).array(int[].class).ofSize(n),
                        Arbitraries.integers().between(-1, 3).array(int[].class).ofSize(n),
                        Arbitraries.integers().between(1, 3).array(int[].class).ofMaxSize(2))
                    .as(Case::new));
  }

  @Provide
  Arbitrary<Case> rankingsWithoutTies() {
    return Arbitraries.integers()
        .between(1, 12)
        .flatMap(
            n ->
                Combinators.combine(
                        Arbitraries.shuffle(IntStream.range(0, n).boxed().toList()),
                        Arbitraries.integers().between(-1, 3).array(int[].class).ofSize(n),
                        Arbitraries.integers().between(1, 3).array(int[].class).ofMaxSize(2))
                    .as(
                        (scores, grades, more) ->
                            new Case(
                                scores.stream().mapToInt(Integer::intValue).toArray(),
                                grades,
                                more)));
  }

  /** The ten reported metrics, then each kind at each generic cut-off. */
  private static List<Metric> metricsUnderTest() {
    List<Metric> metrics = new ArrayList<>(MetricSuite.standard());
    for (Metric.Kind kind : Metric.Kind.values()) {
      for (int k : GENERIC_CUTOFFS) {
        metrics.add(new Metric(kind + "@" + k, kind, k));
      }
    }
    return metrics;
  }

  /** Orders the case as trec_eval would and returns the grades in that order. */
  private static Ranked rank(Case c) {
    List<ScoredDoc> docs = new ArrayList<>();
    for (int i = 0; i < c.scores().length; i++) {
      docs.add(new ScoredDoc("d" + i, c.scores()[i]));
    }
    List<ScoredDoc> ordered = RunOrder.TREC_EVAL.apply(docs);
    int[] grades =
        ordered.stream()
            .mapToInt(d -> c.grades()[Integer.parseInt(d.docId().substring(1))])
            .toArray();
    List<Integer> judged = new ArrayList<>();
    Arrays.stream(c.grades()).forEach(judged::add);
    Arrays.stream(c.unretrieved()).forEach(judged::add);
    return new Ranked(grades, TieGroups.of(ordered), new JudgedQuery(judged));
  }

  private record Ranked(int[] grades, TieGroups groups, JudgedQuery judged) {}

  /** Every grade sequence reachable by permuting positions within groups, with repeats. */
  private static List<int[]> allOrders(int[] grades, TieGroups groups) {
    List<int[]> orders = List.of(grades.clone());
    for (int g = 0; g < groups.count(); g++) {
      List<int[]> next = new ArrayList<>();
      for (int[] order : orders) {
        permute(order, groups.start(g), groups.end(g), next);
      }
      orders = next;
    }
    return orders;
  }

  private static void permute(int[] a, int i, int to, List<int[]> out) {
    if (i >= to - 1) {
      out.add(a.clone());
      return;
    }
    for (int j = i; j < to; j++) {
      swap(a, i, j);
      permute(a, i + 1, to, out);
      swap(a, i, j);
    }
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  @Property(tries = 400)
  void expectationMinAndMaxEqualBruteForceOverEveryOrderOfTheTies(
      @ForAll("rankingsWithTies") Case c) {
    Ranked ranked = rank(c);
    List<int[]> orders = allOrders(ranked.grades(), ranked.groups());
    for (Metric metric : metricsUnderTest()) {
      double sum = 0;
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (int[] order : orders) {
        double v = metric.compute(order, ranked.judged());
        sum += v;
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      double mean = sum / orders.size();
      double deterministic = metric.compute(ranked.grades(), ranked.judged());
      TieAwareValue value =
          TieAwareEvaluator.evaluate(metric, ranked.grades(), ranked.groups(), ranked.judged());
      String label = metric.name() + " on " + c;
      assertThat(value.expected()).as(label).isCloseTo(mean, within(1e-12));
      assertThat(value.min()).as(label).isEqualTo(min);
      assertThat(value.max()).as(label).isEqualTo(max);
      assertThat(value.range()).as(label).isEqualTo(max - min);
      assertThat(value.bias()).as(label).isCloseTo(deterministic - mean, within(1e-12));
      assertThat(value.expected()).as(label).isBetween(min, max);
    }
  }

  @Property(tries = 300)
  void manyMetricsAtOnceGiveEachMetricsOwnValueThoughTheOrdersStopAtTheDeepestCutoff(
      @ForAll("rankingsWithTies") Case c) {
    Ranked ranked = rank(c);
    List<Metric> metrics = metricsUnderTest();
    List<TieAwareValue> together =
        TieAwareEvaluator.evaluate(metrics, ranked.grades(), ranked.groups(), ranked.judged());
    assertThat(together).hasSameSizeAs(metrics);
    for (int m = 0; m < metrics.size(); m++) {
      Metric metric = metrics.get(m);
      assertThat(together.get(m))
          .as(metric.name() + " on " + c)
          .isEqualTo(
              TieAwareEvaluator.evaluate(
                  metric, ranked.grades(), ranked.groups(), ranked.judged()));
    }
  }

  @Property(tries = 200)
  void withoutTiesEveryValueIsThePlainMetricWithNoRangeAndNoBias(
      @ForAll("rankingsWithoutTies") Case c) {
    Ranked ranked = rank(c);
    assertThat(ranked.groups().hasTies()).isFalse();
    for (Metric metric : metricsUnderTest()) {
      double plain = metric.compute(ranked.grades(), ranked.judged());
      TieAwareValue value =
          TieAwareEvaluator.evaluate(metric, ranked.grades(), ranked.groups(), ranked.judged());
      assertThat(value)
          .as(metric.name() + " on " + c)
          .isEqualTo(new TieAwareValue(plain, plain, plain, 0, 0));
    }
  }
}
