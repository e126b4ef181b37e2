package dev.tenbin.scoring.metrics;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Relevance judgments: query id to document id to grade. A grade of 1 or more is relevant ({@code
 * trec_eval}'s relevance level 1); grades of 0 or less are judged non-relevant.
 */
public final class Qrels {
  private final Map<String, Map<String, Integer>> judgments;

  private Qrels(Map<String, Map<String, Integer>> judgments) {
    this.judgments = judgments;
  }

  /** Builds qrels; the maps are copied, order kept. */
  public static Qrels of(Map<String, Map<String, Integer>> judgments) {
    Map<String, Map<String, Integer>> copy = new LinkedHashMap<>();
    judgments.forEach(
        (query, docs) -> copy.put(query, Collections.unmodifiableMap(new LinkedHashMap<>(docs))));
    return new Qrels(Collections.unmodifiableMap(copy));
  }

  /** Judged queries, in the order first seen. */
  public List<String> queryIds() {
    return List.copyOf(judgments.keySet());
  }

  public boolean isJudged(String queryId) {
    return judgments.containsKey(queryId);
  }

  /** Document id to grade for one query; empty when the query is not judged. */
  public Map<String, Integer> judgments(String queryId) {
    return judgments.getOrDefault(queryId, Map.of());
  }

  /** The grade of a document, 0 when unjudged. */
  public int grade(String queryId, String docId) {
    return judgments(queryId).getOrDefault(docId, 0);
  }

  /** Number of relevant (grade > 0) documents of a query. */
  public int relevantCount(String queryId) {
    int count = 0;
    for (int grade : judgments(queryId).values()) {
      if (grade > 0) {
        count++;
      }
    }
    return count;
  }
}
