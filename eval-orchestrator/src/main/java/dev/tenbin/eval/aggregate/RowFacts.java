package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.store.CellRecord;
import java.util.List;
import java.util.Map;

/**
 * What a row costs and is: for filtering and the Pareto charts.
 *
 * @param dimension vector dimension, or null (BM25, unknown)
 * @param parameters model parameter count, or null
 * @param bytesPerVector stored bytes per document vector, or null
 * @param latencyUs mean over the row's cells of the measured single-query latency, encode plus
 *     search (µs; the cells' {@code query_encode_latency_us + search_latency_us} probes, else their
 *     batch per-query averages), or null when no cell timed it
 */
public record RowFacts(
    Double dimension, Double parameters, Double bytesPerVector, Double latencyUs) {
  /** The facts of a row's cells: the first cell that knows a fact supplies it. */
  public static RowFacts of(List<CellRecord> cells) {
    double latency = 0;
    int timed = 0;
    for (CellRecord cell : cells) {
      Map<String, Double> timings = cell.timings() == null ? Map.of() : cell.timings();
      boolean probed = timings.containsKey("search_latency_us");
      Double encode = timings.get(probed ? "query_encode_latency_us" : "per_query_encode_us");
      Double search = timings.get(probed ? "search_latency_us" : "per_query_search_us");
      if (encode != null || search != null) {
        latency += (encode == null ? 0 : encode) + (search == null ? 0 : search);
        timed++;
      }
    }
    return new RowFacts(
        fact(cells, "dimension"),
        fact(cells, "parameters"),
        bytesPerVector(cells),
        timed == 0 ? null : latency / timed);
  }

  private static Double fact(List<CellRecord> cells, String name) {
    for (CellRecord cell : cells) {
      Double value = cell.facts() == null ? null : cell.facts().get(name);
      if (value != null && Double.isFinite(value)) {
        return value;
      }
    }
    return null;
  }

  private static Double bytesPerVector(List<CellRecord> cells) {
    Double fact = fact(cells, "bytes_per_vector");
    if (fact != null) {
      return fact;
    }
    for (CellRecord cell : cells) {
      Object value = cell.diagnostics() == null ? null : cell.diagnostics().get("bytes_per_vector");
      if (value instanceof Number number) {
        return number.doubleValue();
      }
    }
    return null;
  }
}
