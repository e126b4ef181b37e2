package dev.tenbin.eval.job;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.scoring.metrics.Metric;
import dev.tenbin.scoring.metrics.MetricSuite;
import java.util.ArrayList;
import java.util.List;

/**
 * The measures a job spec ({@code measures:}) or a report ({@code --measure}) chooses beside the
 * standard suite, in {@code trec_eval -m} terms ({@code P.5,10,100}, {@code ndcg_cut.5,20}, {@code
 * recip_rank}, ...; see {@link MetricSuite#trecEvalMeasures}): read and checked here, measured by
 * the reports.
 */
public final class MeasureSpecs {
  private MeasureSpecs() {}

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
