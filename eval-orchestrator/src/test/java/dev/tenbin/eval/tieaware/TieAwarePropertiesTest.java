package dev.tenbin.eval.tieaware;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.eval.metrics.JudgedQuery;
import dev.tenbin.eval.metrics.Metric;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Example;

/** Closed forms against brute force over every order of the tied groups. */
class TieAwarePropertiesTest {
  record Case(int[] grades, int[] groupSizes, int extraRelevant, Metric metric) {}

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<int[]> grades = Arbitraries.integers().between(-1, 3).array(int[].class).ofMinSize(1).ofMaxSize(8);
    Arbitrary<Metric.Kind> kinds = Arbitraries.of(Metric.Kind.class);
    Arbitrary<Integer> cutoffs = Arbitraries.integers().between(1, 9);
    Arbitrary<Long> groupSeeds = Arbitraries.longs();
    Arbitrary<Integer> extra = Arbitraries.integers().between(0, 2);
    return Combinators.combine(grades, kinds, cutoffs, groupSeeds, extra)
        .as(
            (g, kind, k, seed, more) -> {
              java.util.Random random = new java.util.Random(seed);
              List<Integer> sizes = new ArrayList<>();
              int left = g.length;
              while (left > 0) {
                int size = 1 + random.nextInt(Math.min(left, 4));
                sizes.add(size);
                left -= size;
              }
              return new Case(g, sizes.stream().mapToInt(Integer::intValue).toArray(), more, new Metric("m", kind, k));
            });
  }

  private static TieGroups groups(int[] sizes, int n) {
    int[] starts = new int[sizes.length];
    for (int i = 1; i < sizes.length; i++) {
      starts[i] = starts[i - 1] + sizes[i - 1];
    }
    return TieGroups.fromStarts(starts, n);
  }

  private static JudgedQuery judged(int[] grades, int extraRelevant) {
    List<Integer> all = new ArrayList<>();
    for (int g : grades) {
      all.add(g);
    }
    for (int i = 0; i < extraRelevant; i++) {
      all.add(1 + i); // relevant documents that were not retrieved
    }
    return new JudgedQuery(all);
  }

  /** Every ranking reachable by permuting within groups. */
  private static List<int[]> allOrders(int[] grades, TieGroups groups) {
    List<int[]> orders = new ArrayList<>();
    orders.add(grades.clone());
    for (int g = 0; g < groups.count(); g++) {
      List<int[]> next = new ArrayList<>();
      for (int[] order : orders) {
        permute(order, groups.start(g), groups.end(g), groups.start(g), next);
      }
      orders = next;
    }
    return orders;
  }

  private static void permute(int[] a, int from, int to, int i, List<int[]> out) {
    if (i == to) {
      out.add(a.clone());
      return;
    }
    for (int j = i; j < to; j++) {
      swap(a, i, j);
      permute(a, from, to, i + 1, out);
      swap(a, i, j);
    }
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  @Property(tries = 800)
  void closedFormsEqualBruteForceOverAllOrders(@ForAll("cases") Case c) {
    TieGroups groups = groups(c.groupSizes(), c.grades().length);
    JudgedQuery judged = judged(c.grades(), c.extraRelevant());
    double sum = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    List<int[]> orders = allOrders(c.grades(), groups);
    for (int[] order : orders) {
      double v = c.metric().compute(order, judged);
      sum += v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    TieAwareValue value = TieAwareEvaluator.evaluate(c.metric(), c.grades(), groups, judged);
    String label = c.metric().kind() + "@" + c.metric().cutoff() + " " + Arrays.toString(c.grades())
        + " groups " + Arrays.toString(c.groupSizes());
    assertThat(value.expected()).as(label).isCloseTo(sum / orders.size(), within(1e-9));
    assertThat(value.min()).as(label).isCloseTo(min, within(1e-12));
    assertThat(value.max()).as(label).isCloseTo(max, within(1e-12));
    assertThat(value.range()).isCloseTo(max - min, within(1e-12));
    assertThat(value.bias())
        .isCloseTo(c.metric().compute(c.grades(), judged) - sum / orders.size(), within(1e-9));
  }

  @Property(tries = 300)
  void withoutTiesEveryValueIsThePlainMetric(@ForAll("cases") Case c) {
    int n = c.grades().length;
    int[] singletons = new int[n];
    Arrays.fill(singletons, 1);
    TieGroups groups = groups(singletons, n);
    JudgedQuery judged = judged(c.grades(), c.extraRelevant());
    double plain = c.metric().compute(c.grades(), judged);
    TieAwareValue value = TieAwareEvaluator.evaluate(c.metric(), c.grades(), groups, judged);
    assertThat(value).isEqualTo(new TieAwareValue(plain, plain, plain, 0, 0));
  }

  @Example
  void aRelevantDocumentTiedWithOneOtherAtTheTopHasExpectedReciprocalRankThreeQuarters() {
    int[] grades = {0, 1};
    TieGroups groups = TieGroups.fromStarts(new int[] {0}, 2);
    JudgedQuery judged = new JudgedQuery(List.of(1));
    TieAwareValue rr = TieAwareEvaluator.evaluate(new Metric("mrr@10", Metric.Kind.RECIPROCAL_RANK, 10), grades, groups, judged);
    assertThat(rr.expected()).isEqualTo(0.75);
    assertThat(rr.min()).isEqualTo(0.5);
    assertThat(rr.max()).isEqualTo(1.0);
    assertThat(rr.bias()).isEqualTo(-0.25);
  }
}
