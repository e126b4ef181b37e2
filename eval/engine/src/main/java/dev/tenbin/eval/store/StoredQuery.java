package dev.tenbin.eval.store;

import java.util.List;
import java.util.Map;

/**
 * One evaluated query of a cell: its top-100 with scores, and its metric values.
 *
 * @param queryId the query id
 * @param metrics metric name ("ndcg@10", ...) to this query's value
 * @param docs the ranking, rank 1 first, at most 100 documents
 */
public record StoredQuery(String queryId, Map<String, Double> metrics, List<StoredDoc> docs) {}
