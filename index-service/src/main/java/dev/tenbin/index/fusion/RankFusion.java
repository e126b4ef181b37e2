package dev.tenbin.index.fusion;

import dev.tenbin.core.InvalidInputException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fusion of several rankings of one query. Fused lists are ordered by fused score descending, then
 * doc id ascending; fused scores are FP32 (accumulated in double, then rounded once).
 */
public final class RankFusion {
  private RankFusion() {}

  /**
   * Reciprocal rank fusion: score(d) = Σ over rankings containing d of 1 / (k + rank), rank from 1.
   * A document missing from a ranking contributes nothing for it. k = 60 for hybrid search, 100 for
   * Tenbin's candidate sets.
   */
  public static List<RankedDoc> reciprocalRank(List<List<RankedDoc>> rankings, int k, int topK) {
    if (k < 0) {
      throw new InvalidInputException("rrf_k", "rrf_k must not be negative, got " + k);
    }
    Map<String, Double> fused = new LinkedHashMap<>();
    for (List<RankedDoc> ranking : rankings) {
      for (int rank = 0; rank < ranking.size(); rank++) {
        fused.merge(ranking.get(rank).docId(), 1.0 / (k + rank + 1), Double::sum);
      }
    }
    return top(fused, topK);
  }

  /**
   * Normalised linear interpolation: each ranking's scores min-max normalised to [0, 1] over its
   * own list (a list whose scores are all equal maps to 1), a document missing from a list counts 0
   * there, and the fused score is Σ weight_i · normalised_i.
   */
  public static List<RankedDoc> linear(List<List<RankedDoc>> rankings, List<Float> weights, int topK) {
    if (weights.size() != rankings.size()) {
      throw new InvalidInputException(
          "weights", "one weight per ranking is needed: " + rankings.size() + " rankings, " + weights.size() + " weights");
    }
    Map<String, Double> fused = new LinkedHashMap<>();
    for (int i = 0; i < rankings.size(); i++) {
      List<RankedDoc> ranking = rankings.get(i);
      if (ranking.isEmpty()) {
        continue;
      }
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (RankedDoc doc : ranking) {
        min = Math.min(min, doc.score());
        max = Math.max(max, doc.score());
      }
      for (RankedDoc doc : ranking) {
        double normalised = max > min ? (doc.score() - min) / (max - min) : 1.0;
        fused.merge(doc.docId(), weights.get(i) * normalised, Double::sum);
      }
    }
    return top(fused, topK);
  }

  private static List<RankedDoc> top(Map<String, Double> fused, int topK) {
    List<RankedDoc> out = new ArrayList<>(fused.size());
    Map<String, Float> rounded = new HashMap<>();
    fused.forEach((id, score) -> rounded.put(id, (float) (double) score));
    rounded.forEach((id, score) -> out.add(new RankedDoc(id, score)));
    out.sort(Comparator.comparing(RankedDoc::score, Comparator.reverseOrder()).thenComparing(RankedDoc::docId));
    return topK > 0 && out.size() > topK ? new ArrayList<>(out.subList(0, topK)) : out;
  }
}
