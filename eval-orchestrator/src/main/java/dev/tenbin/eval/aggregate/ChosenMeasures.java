package dev.tenbin.eval.aggregate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.metrics.Metric;
import dev.tenbin.scoring.metrics.MetricSuite;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Measures a job or a report chose beside the standard suite, in {@code trec_eval -m} terms ({@code
 * P.5,10,100}, {@code ndcg_cut.5,20}, {@code recip_rank}, ...; see {@link
 * MetricSuite#trecEvalMeasures}), measured on the stored rankings of each cell against the
 * judgments its job kept. A cell's stored order (score descending, document id ascending on ties)
 * is the order measured, as for the standard suite, so a value equals {@code trec_eval -c} on the
 * cell exported with {@code tenbin export trec} and its job's judgments file; each comes with its
 * tie-aware form.
 *
 * @param specs the measures as written ({@code P.5,10}, ...)
 * @param names the metrics they name, in Tenbin's terms ({@code precision@5}, ...), in order
 * @param values per row, per task, per metric name: the value
 * @param unmeasured cells that could not be measured because their job folder keeps no judgments
 *     for their dataset (a job run before judgments were kept)
 */
public record ChosenMeasures(
    List<String> specs,
    List<String> names,
    Map<RowKey, Map<TaskRef, Map<String, Value>>> values,
    int unmeasured) {

  /**
   * One measured value.
   *
   * @param value the mean over the cell's evaluated queries, in its stored order
   * @param tieAware its tie-aware form over the orders of tied scores
   */
  public record Value(double value, TieAwareValue tieAware) {}

  public ChosenMeasures {
    specs = List.copyOf(specs);
    names = List.copyOf(names);
    values = Map.copyOf(values);
  }

  /**
   * The metrics {@code specs} name; an {@link InvalidInputException} naming {@code field} (its
   * message without the field's name) when one is not a measure.
   */
  public static List<Metric> metrics(String field, List<String> specs) {
    try {
      return MetricSuite.trecEvalMeasures(specs);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(field, e.getMessage());
    }
  }

  /**
   * The measure specifications of a job spec's {@code measures:} field: a list of {@code trec_eval
   * -m} specifications, one per line ({@code - P.5,10,100}) or quoted in a flow list ({@code
   * ["P.5,10,100", "ndcg_cut.5,20"]}: unquoted, YAML splits it at the commas); empty when the field
   * is missing.
   */
  public static List<String> fromYaml(JsonNode node) {
    if (node == null || node.isMissingNode() || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new InvalidInputException(
          "measures",
          "a list of trec_eval measures, one per line (- P.5,10,100 and - ndcg_cut.5,20)");
    }
    List<String> specs = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      JsonNode item = node.get(i);
      String field = "measures[" + i + "]";
      if (!item.isTextual()) {
        throw new InvalidInputException(
            field,
            SafeText.quote(item.asText())
                + " is not a trec_eval measure; write one measure per line (- P.5,10,100) or quote"
                + " it in a flow list ([\"P.5,10,100\"]): unquoted, YAML splits it at the commas");
      }
      specs.add(item.asText());
    }
    metrics("measures", specs);
    return List.copyOf(specs);
  }
}
