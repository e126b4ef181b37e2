package dev.tenbin.eval.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.SystemRef;
import dev.tenbin.scoring.stats.Interval;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatisticalGroupsTest {
  private static RowKey row(String model) {
    return new RowKey(SystemRef.stored("dense", model), "base", "retrieval");
  }

  private static Map<RowKey, String> groups(Map<RowKey, Interval> intervals, RowKey... ranked) {
    return StatisticalGroups.of(List.of(ranked), intervals::get);
  }

  @Test
  void rowsOverlappingTheLeaderShareItsGroupAndTheBestRowOutsideLeadsTheNext() {
    RowKey a = row("a");
    RowKey b = row("b");
    RowKey c = row("c");
    RowKey d = row("d");
    RowKey e = row("e");
    Map<RowKey, Interval> intervals =
        Map.of(
            a, new Interval(80, 90),
            b, new Interval(75, 82), // overlaps a
            c, new Interval(70, 79), // overlaps b but not a: leads B
            d, new Interval(60, 70), // touches c's low end: closed intervals, joins B
            e, new Interval(40, 55));

    assertThat(groups(intervals, a, b, c, d, e))
        .containsExactly(
            Map.entry(a, "A"),
            Map.entry(b, "A"),
            Map.entry(c, "B"),
            Map.entry(d, "B"),
            Map.entry(e, "C"));
  }

  @Test
  void onlyTheLeadersIntervalDecidesSoAGroupMaySkipANarrowRow() {
    RowKey a = row("a");
    RowKey b = row("b");
    RowKey c = row("c");
    // b is narrow and below a; c is wide and reaches up into a
    Map<RowKey, Interval> intervals =
        Map.of(a, new Interval(70, 80), b, new Interval(66, 68), c, new Interval(50, 72));

    assertThat(groups(intervals, a, b, c))
        .containsEntry(a, "A")
        .containsEntry(c, "A")
        .containsEntry(b, "B");
  }

  @Test
  void rowsWithoutAnIntervalGetNoGroup() {
    RowKey a = row("a");
    RowKey b = row("b");
    assertThat(groups(Map.of(b, new Interval(1, 2)), a, b)).containsExactly(Map.entry(b, "A"));
  }

  @Test
  void theTwentySeventhGroupIsNamedByNumber() {
    RowKey[] rows = new RowKey[28];
    java.util.Map<RowKey, Interval> intervals = new java.util.HashMap<>();
    for (int i = 0; i < rows.length; i++) {
      rows[i] = row("m" + i);
      intervals.put(rows[i], new Interval(100 - 3 * i, 101 - 3 * i));
    }
    Map<RowKey, String> groups = groups(intervals, rows);
    assertThat(groups.get(rows[0])).isEqualTo("A");
    assertThat(groups.get(rows[25])).isEqualTo("Z");
    assertThat(groups.get(rows[26])).isEqualTo("G27");
    assertThat(groups.get(rows[27])).isEqualTo("G28");
  }
}
