package dev.tenbin.eval.aggregate;

import dev.tenbin.eval.job.MeasureSpecs;
import dev.tenbin.eval.store.TaskRef;
import dev.tenbin.scoring.metrics.MetricSuite;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.util.List;
import java.util.Map;

/**
 * Measures a job or a report chose beside the standard suite, in {@code trec_eval -m} terms ({@code
 * P.5,10,100}, {@code ndcg_cut.5,20}, {@code recip_rank}, ...; see {@link
 * MetricSuite#trecEvalMeasures}), measured on the stored rankings of each cell against the
 * judgments its job kept. A cell's stored order (score descending, document id ascending on ties)
 * is the order measured, as for the standard suite, so a value equals {@code trec_eval -c} on the
 * cell exported with {@code tenbin export trec} and its job's judgments file; each comes with its
 * tie-aware form. What a job or a report may name is checked by {@link MeasureSpecs}.
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
}
