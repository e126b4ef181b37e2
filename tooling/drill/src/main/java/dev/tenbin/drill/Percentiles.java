package dev.tenbin.drill;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Nearest-rank percentiles of latencies. */
final class Percentiles {
  private Percentiles() {}

  /** The {@code percent}th percentile (nearest rank) of {@code values}; -1 when there are none. */
  static long of(List<Long> values, int percent) {
    if (values.isEmpty()) {
      return -1;
    }
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(
        Math.min(sorted.size() - 1, (int) Math.ceil(percent / 100.0 * sorted.size()) - 1));
  }
}
