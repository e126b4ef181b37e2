package dev.tenbin.scoring.metrics;

import java.util.Map;

/**
 * Metrics of a run over a set of queries. Every map keeps the metric suite's order, and the query
 * maps the order of the evaluated query ids.
 *
 * @param numQueries queries averaged over
 * @param means metric name to the arithmetic mean of the per-query values
 * @param tieAware metric name to the tie-aware value averaged over queries (each of its five fields
 *     is the mean of that field over the queries)
 * @param perQuery query id to metric name to value
 * @param perQueryTieAware query id to metric name to tie-aware value
 */
public record Evaluation(
    int numQueries,
    Map<String, Double> means,
    Map<String, TieAwareValue> tieAware,
    Map<String, Map<String, Double>> perQuery,
    Map<String, Map<String, TieAwareValue>> perQueryTieAware) {}
