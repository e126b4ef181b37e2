package dev.tenbin.eval;

import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.metrics.Evaluation;
import dev.tenbin.eval.metrics.RankingEvaluator;
import dev.tenbin.eval.metrics.RunOrder;
import dev.tenbin.eval.retrieval.RetrievalResult;
import java.util.LinkedHashMap;
import java.util.Map;

/** Turns a retrieval result into an evaluated run over the dataset's evaluated queries. */
public final class RunScorer {
  private RunScorer() {}

  public static EvalRun score(
      BeirDataset dataset, String retriever, String variant, String mode, RetrievalResult result) {
    Evaluation evaluation =
        RankingEvaluator.standard()
            .evaluate(dataset.qrels(), result.rankings(), dataset.evaluatedQueryIds(), RunOrder.AS_GIVEN);
    Map<String, Double> timings = new LinkedHashMap<>();
    timings.put("index_ms", result.indexNanos() / 1e6);
    timings.put("search_ms", result.searchNanos() / 1e6);
    timings.put("document_encode_ms", result.documentEncodeNanos() / 1e6);
    timings.put("query_encode_ms", result.queryEncodeNanos() / 1e6);
    int queries = Math.max(1, dataset.evaluatedQueryIds().size());
    timings.put("per_query_encode_us", result.queryEncodeNanos() / 1e3 / queries);
    timings.put("per_query_search_us", result.searchNanos() / 1e3 / queries);
    for (String latency : java.util.List.of("query_encode_latency_us", "search_latency_us")) {
      if (result.diagnostics().get(latency) instanceof Number value) {
        timings.put(latency, value.doubleValue());
      }
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
        timings,
        result.diagnostics());
  }
}
