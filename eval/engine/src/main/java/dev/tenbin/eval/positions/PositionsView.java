package dev.tenbin.eval.positions;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code tenbin report --view positions}: the stored position analyses of a job's cells, per task
 * the systems ordered by the PSI of the bucket holding most queries (most position-robust first),
 * as terminal text, Markdown or JSON.
 */
public final class PositionsView {
  private PositionsView() {}

  /**
   * One cell's analysis.
   *
   * @param task the task
   * @param system the cell's label: system/variant/mode
   * @param analysis with reference correlations where the task has the reference cell
   * @param key the cell's key (family, variant and mode for filters)
   */
  public record Row(String task, String system, PositionAnalysis analysis, CellKey key) {
    /** PSI of the bucket with the most queries; null when undefined there. */
    public Double mainPsi() {
      return analysis.buckets().stream()
          .max(Comparator.comparingInt(PositionBucket::queries))
          .map(PositionBucket::psi)
          .orElse(null);
    }
  }

  /**
   * The newest cell of each key that carries an analysis, with reference correlations against
   * {@code reference} ({@link PositionReferences}), ordered by task, then main PSI (nulls last),
   * then label.
   */
  public static List<Row> rows(List<CellRecord> cells, String reference) {
    List<Row> rows = new ArrayList<>();
    for (PositionReferences.Analysed analysed : PositionReferences.analyses(cells, reference)) {
      CellRecord cell = analysed.cell();
      rows.add(
          new Row(
              cell.key().task().task(),
              cell.key().system().name()
                  + "/"
                  + cell.key().variant()
                  + "/"
                  + cell.key().mode().wireName(),
              analysed.analysis(),
              cell.key()));
    }
    rows.sort(
        Comparator.comparing(Row::task)
            .thenComparing(Row::mainPsi, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparing(Row::system));
    return rows;
  }

  public static String table(List<Row> rows) {
    StringBuilder out = new StringBuilder();
    for (Row row : rows) {
      out.append(PositionsText.table(row.task() + " " + row.system(), row.analysis()));
    }
    return out.toString();
  }

  public static String markdown(List<Row> rows) {
    StringBuilder out = new StringBuilder();
    out.append(
        "| task | system | tokens | queries | nDCG@10 by bin | PSI | slope | Spearman | ref r |\n");
    out.append("|---|---|---|---:|---|---:|---:|---:|---:|\n");
    for (Row row : rows) {
      for (PositionBucket bucket : row.analysis().buckets()) {
        if (bucket.queries() == 0) {
          continue;
        }
        out.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %d | `%s` | %s | %s | %s | %s |%n",
                row.task(),
                row.system(),
                bucket.maxTokens() == null
                    ? ">" + bucket.minTokens()
                    : bucket.minTokens() + "–" + bucket.maxTokens(),
                bucket.queries(),
                PositionsText.profile(bucket, row.analysis().minCount()),
                number(bucket.psi()),
                number(bucket.slope()),
                number(bucket.spearman()),
                number(bucket.referencePearson())));
      }
    }
    if (!rows.isEmpty()) {
      out.append(System.lineSeparator())
          .append(PositionsText.legend(rows.get(0).analysis().minCount()).strip())
          .append(System.lineSeparator());
    }
    return out.toString();
  }

  public static String json(List<Row> rows) {
    ArrayNode array = ResultStore.JSON.createArrayNode();
    for (Row row : rows) {
      ObjectNode node = array.addObject();
      node.put("task", row.task());
      node.put("system", row.system());
      node.set("positions", ResultStore.JSON.valueToTree(row.analysis()));
    }
    return array.toString() + "\n";
  }

  private static String number(Double value) {
    return value == null ? "–" : String.format(Locale.ROOT, "%.3f", value);
  }
}
