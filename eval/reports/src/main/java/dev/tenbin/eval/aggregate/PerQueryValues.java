package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.StoredQuery;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A cell's stored per-query values of one metric, and the queries several cells share: what the
 * paired tests and the query bootstraps of a leaderboard pair up.
 */
final class PerQueryValues {
  private PerQueryValues() {}

  /**
   * Query id to the metric's value (0..1), in stored order; empty when the cell stored no per-query
   * values (queries without the metric are left out).
   */
  static Map<String, Double> of(CellRecord cell, String metric) {
    if (cell.queries() == null) {
      return Map.of();
    }
    Map<String, Double> values = new LinkedHashMap<>();
    for (StoredQuery query : cell.queries()) {
      Double value = query.metrics() == null ? null : query.metrics().get(metric);
      if (value != null && query.queryId() != null) {
        values.put(query.queryId(), value);
      }
    }
    return Collections.unmodifiableMap(values);
  }

  /** The ids every map has, in the first map's order. */
  static List<String> shared(List<Map<String, Double>> cells) {
    if (cells.isEmpty()) {
      return List.of();
    }
    List<String> ids = new ArrayList<>();
    for (String id : cells.getFirst().keySet()) {
      if (cells.stream().allMatch(c -> c.containsKey(id))) {
        ids.add(id);
      }
    }
    return ids;
  }

  /** The values of {@code ids} in that order. */
  static double[] values(Map<String, Double> cell, List<String> ids) {
    return ids.stream().mapToDouble(cell::get).toArray();
  }
}
