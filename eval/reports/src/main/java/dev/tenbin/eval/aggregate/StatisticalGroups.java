package dev.tenbin.eval.aggregate;

import dev.tenbin.scoring.stats.Interval;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Rows a leaderboard cannot tell apart at its confidence level. The rule: the best ranked row not
 * yet in a group leads a new group; every ranked row not yet in a group whose interval overlaps the
 * leader's (closed intervals: touching counts) joins it; repeat until every row has a group. Groups
 * are named A, B, ..., Z, then G27, G28, ... in the order their leaders rank. Only the leader's
 * interval decides membership, so a group may skip a row whose interval is narrower than its
 * neighbours' (that row then leads or joins a later group), and two rows of different groups may
 * still overlap each other.
 */
public final class StatisticalGroups {
  private StatisticalGroups() {}

  /**
   * The group of each row.
   *
   * @param ranked rows in rank order, best first
   * @param interval the interval of a row; a row without one (null) gets no group and leads none
   * @return row to group name, for the rows with an interval
   */
  public static Map<RowKey, String> of(List<RowKey> ranked, Function<RowKey, Interval> interval) {
    Map<RowKey, String> groups = new LinkedHashMap<>();
    int count = 0;
    for (RowKey leader : ranked) {
      Interval lead = interval.apply(leader);
      if (lead == null || groups.containsKey(leader)) {
        continue;
      }
      String name = name(count++);
      for (RowKey row : ranked) {
        Interval theirs = interval.apply(row);
        if (theirs != null && !groups.containsKey(row) && overlap(lead, theirs)) {
          groups.put(row, name);
        }
      }
    }
    return groups;
  }

  static boolean overlap(Interval a, Interval b) {
    return a.low() <= b.high() && b.low() <= a.high();
  }

  static String name(int index) {
    return index < 26 ? String.valueOf((char) ('A' + index)) : "G" + (index + 1);
  }
}
