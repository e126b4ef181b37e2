package dev.tenbin.eval.retrieval;

import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.result.Timing;
import dev.tenbin.eval.result.Timings;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import java.util.EnumMap;
import java.util.Map;

/** Turns a retrieval result into an evaluated run over the dataset's evaluated queries. */
public final class RunScorer {
  private RunScorer() {}

  public static CellResult score(
      BeirDataset dataset,
      String retriever,
      String variant,
      RankingMode mode,
      RetrievalResult result) {
    Evaluation evaluation =
        RankingEvaluator.standard()
            .evaluate(
                dataset.qrels(), result.rankings(), dataset.evaluatedQueryIds(), RunOrder.AS_GIVEN);
    Map<Timing, Double> timings = new EnumMap<>(Timing.class);
    timings.put(Timing.INDEX_MS, result.indexNanos() / 1e6);
    if (result.variantIndexNanos() >= 0) {
      timings.put(Timing.VARIANT_INDEX_MS, result.variantIndexNanos() / 1e6);
    }
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
    if (result.diagnostics().queryEncodeLatencyP99Us() != null) {
      timings.put(
          Timing.QUERY_ENCODE_LATENCY_P99_US, result.diagnostics().queryEncodeLatencyP99Us());
    }
    if (result.diagnostics().searchLatencyP99Us() != null) {
      timings.put(Timing.SEARCH_LATENCY_P99_US, result.diagnostics().searchLatencyP99Us());
    }
    ConcurrentLatency concurrent = result.diagnostics().concurrentLatency();
    if (concurrent != null) {
      timings.put(Timing.CONCURRENT_LATENCY_P50_US, concurrent.p50Us());
      timings.put(Timing.CONCURRENT_LATENCY_P99_US, concurrent.p99Us());
    }
    return new CellResult(
        retriever,
        variant,
        mode,
        evaluation.numQueries(),
        evaluation.means(),
        evaluation.tieAware(),
        evaluation.perQuery(),
        result.rankings(),
        Timings.of(timings),
        result.diagnostics());
  }
}
