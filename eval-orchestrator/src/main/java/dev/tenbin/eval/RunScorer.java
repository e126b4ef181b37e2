package dev.tenbin.eval;

import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.metrics.Evaluation;
import dev.tenbin.eval.metrics.RankingEvaluator;
import dev.tenbin.eval.metrics.RunOrder;
import dev.tenbin.eval.retrieval.RetrievalResult;
import java.util.EnumMap;
import java.util.Map;

/** Turns a retrieval result into an evaluated run over the dataset's evaluated queries. */
public final class RunScorer {
  private RunScorer() {}

  public static EvalRun score(
      BeirDataset dataset, String retriever, String variant, RunMode mode, RetrievalResult result) {
    Evaluation evaluation =
        RankingEvaluator.standard()
            .evaluate(
                dataset.qrels(), result.rankings(), dataset.evaluatedQueryIds(), RunOrder.AS_GIVEN);
    Map<Timing, Double> timings = new EnumMap<>(Timing.class);
    timings.put(Timing.INDEX_MS, result.indexNanos() / 1e6);
    timings.put(Timing.SEARCH_MS, result.searchNanos() / 1e6);
    timings.put(Timing.DOCUMENT_ENCODE_MS, result.documentEncodeNanos() / 1e6);
    timings.put(Timing.QUERY_ENCODE_MS, result.queryEncodeNanos() / 1e6);
    int queries = Math.max(1, dataset.evaluatedQueryIds().size());
    timings.put(Timing.PER_QUERY_ENCODE_US, result.queryEncodeNanos() / 1e3 / queries);
    timings.put(Timing.PER_QUERY_SEARCH_US, result.searchNanos() / 1e3 / queries);
    if (result.diagnostics().queryEncodeLatencyUs() != null) {
      timings.put(Timing.QUERY_ENCODE_LATENCY_US, result.diagnostics().queryEncodeLatencyUs());
    }
    if (result.diagnostics().searchLatencyUs() != null) {
      timings.put(Timing.SEARCH_LATENCY_US, result.diagnostics().searchLatencyUs());
    }
    return new EvalRun(
        retriever,
        variant,
        mode,
        evaluation.numQueries(),
        evaluation.means(),
        evaluation.tieAware(),
        evaluation.perQuery(),
        result.rankings(),
        RunTimings.of(timings),
        result.diagnostics());
  }
}
