package dev.tenbin.eval.shard.kubernetes;

import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The index sets of an Indexed Job's status ({@code completedIndexes}, {@code failedIndexes}):
 * comma-separated indexes and ranges in increasing order, e.g. {@code "0,2-4,7"}.
 */
public final class IndexRanges {
  private IndexRanges() {}

  /** The indexes of {@code text}; empty for null or "". */
  public static SortedSet<Integer> parse(String text) {
    SortedSet<Integer> indexes = new TreeSet<>();
    if (text == null || text.isBlank()) {
      return Collections.unmodifiableSortedSet(indexes);
    }
    for (String part : text.split(",")) {
      String range = part.trim();
      int dash = range.indexOf('-');
      if (dash < 0) {
        indexes.add(Integer.parseInt(range));
      } else {
        int from = Integer.parseInt(range.substring(0, dash).trim());
        int to = Integer.parseInt(range.substring(dash + 1).trim());
        for (int i = from; i <= to; i++) {
          indexes.add(i);
        }
      }
    }
    return Collections.unmodifiableSortedSet(indexes);
  }
}
