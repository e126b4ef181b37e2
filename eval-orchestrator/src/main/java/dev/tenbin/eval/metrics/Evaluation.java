package dev.tenbin.eval.metrics;

import dev.tenbin.eval.tieaware.TieAwareValue;
import java.util.Map;

/**
 * Metrics of a run over a set of queries.
 *
 * @param numQueries queries averaged over
 * @param means metric name to mean value, in suite order
 * @param tieAware metric name to the mean of each tie-aware value
 * @param perQuery query id to metric name to value
 */
public record Evaluation(
    int numQueries,
    Map<String, Double> means,
    Map<String, TieAwareValue> tieAware,
    Map<String, Map<String, Double>> perQuery) {}
