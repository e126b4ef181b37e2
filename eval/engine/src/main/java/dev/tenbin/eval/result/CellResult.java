package dev.tenbin.eval.result;

import dev.tenbin.scoring.metrics.ScoredDoc;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.util.List;
import java.util.Map;

/**
 * One evaluated run: a retriever (or reranker) in one variant and mode, with its rankings, the mean
 * and per-query metrics, the tie-aware view of each metric, and its timings.
 *
 * @param retriever e.g. "bm25", "dense:bge-small-en-v1.5"
 * @param variant e.g. "base", "int8_rescore"
 * @param mode over the whole corpus or a candidate set
 * @param numQueries evaluated queries
 * @param metrics mean metric values, in the standard order
 * @param tieAware per metric: expectation, min, max, range and bias over orders of tied scores
 * @param perQuery query id to metric values
 * @param rankings query id to ranking (score descending, doc id ascending)
 * @param timings its measured durations
 * @param diagnostics facts about the run (candidate-set coverage and origin, ...)
 */
public record CellResult(
    String retriever,
    String variant,
    RankingMode mode,
    int numQueries,
    Map<String, Double> metrics,
    Map<String, TieAwareValue> tieAware,
    Map<String, Map<String, Double>> perQuery,
    Map<String, List<ScoredDoc>> rankings,
    Timings timings,
    RunDiagnostics diagnostics) {

  /** A file-name friendly label: retriever.variant.mode. */
  public String label() {
    return (retriever + "." + variant + "." + mode.wireName()).replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
