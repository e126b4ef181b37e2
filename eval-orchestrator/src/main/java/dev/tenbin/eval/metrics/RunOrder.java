package dev.tenbin.eval.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The order in which a ranking is evaluated. */
public enum RunOrder {
  /**
   * As given: Tenbin's rankings are already ordered by score descending, then doc id ascending.
   */
  AS_GIVEN,
  /**
   * As {@code trec_eval} evaluates a run file: re-sorted by score descending, ties broken by docno
   * descending (strcmp order); a docno repeated within a query keeps its first line.
   */
  TREC_EVAL;

  private static final Comparator<ScoredDoc> TREC_EVAL_ORDER =
      Comparator.comparingDouble(ScoredDoc::score)
          .reversed()
          .thenComparing(ScoredDoc::docId, Comparator.reverseOrder());

  public List<ScoredDoc> apply(List<ScoredDoc> ranking) {
    if (this == AS_GIVEN) {
      return ranking;
    }
    Set<String> seen = new HashSet<>();
    List<ScoredDoc> unique = new ArrayList<>(ranking.size());
    for (ScoredDoc doc : ranking) {
      if (seen.add(doc.docId())) {
        unique.add(doc);
      }
    }
    unique.sort(TREC_EVAL_ORDER);
    return unique;
  }
}
