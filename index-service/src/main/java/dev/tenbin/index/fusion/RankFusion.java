package dev.tenbin.index.fusion;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.rank.Hit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuses several rankings of one query into one: {@link ReciprocalRankFusion} or {@link
 * MinMaxInterpolation}.
 *
 * <p>Input rankings are lists of (doc id, score) in rank order, best first. A doc id listed twice
 * in one ranking counts once, at its first (best) place. The fused ranking holds every document of
 * any input, with FP32 scores (accumulated in double, rounded once), ordered by fused score
 * descending, then doc id ascending ({@link String#compareTo}); since the order compares the
 * rounded scores, it is always consistent with the scores returned.
 */
public sealed interface RankFusion permits ReciprocalRankFusion, MinMaxInterpolation {
  /** The fused ranking of {@code rankings}, all of it. */
  List<Hit> fuse(List<List<Hit>> rankings);

  /** {@link ReciprocalRankFusion} with constant {@code k}, cut to {@code topK} (0 = all). */
  static List<Hit> reciprocalRank(List<List<Hit>> rankings, int k, int topK) {
    return top(new ReciprocalRankFusion(k).fuse(rankings), topK);
  }

  /**
   * {@link ReciprocalRankFusion} with constant {@code k} and one weight per ranking (empty: 1
   * each), cut to {@code topK} (0 = all).
   */
  static List<Hit> reciprocalRank(List<List<Hit>> rankings, int k, List<Float> weights, int topK) {
    return top(new ReciprocalRankFusion(k, weights).fuse(rankings), topK);
  }

  /** {@link MinMaxInterpolation} with one weight per ranking, cut to {@code topK} (0 = all). */
  static List<Hit> linear(List<List<Hit>> rankings, List<Float> weights, int topK) {
    return top(new MinMaxInterpolation(weights).fuse(rankings), topK);
  }

  /** The first {@code topK} of a fused ranking; 0 or less keeps all. */
  static List<Hit> top(List<Hit> fused, int topK) {
    return topK > 0 && fused.size() > topK ? new ArrayList<>(fused.subList(0, topK)) : fused;
  }

  /** Each ranking's documents in rank order without repeats (first place kept). */
  static List<List<Hit>> withoutRepeats(List<List<Hit>> rankings) {
    List<List<Hit>> out = new ArrayList<>(rankings.size());
    for (int r = 0; r < rankings.size(); r++) {
      List<Hit> ranking = rankings.get(r);
      if (ranking == null) {
        throw new InvalidInputException(
            "rankings[" + r + "]", "a ranking is required (it may be empty)");
      }
      Map<String, Hit> first = new LinkedHashMap<>();
      for (Hit doc : ranking) {
        if (doc == null || doc.docId() == null) {
          throw new InvalidInputException(
              "rankings[" + r + "]", "every ranked document needs a doc id");
        }
        first.putIfAbsent(doc.docId(), doc);
      }
      out.add(new ArrayList<>(first.values()));
    }
    return out;
  }

  /** Fused double scores rounded to FP32 and sorted into ranking order. */
  static List<Hit> ranked(Map<String, Double> fused) {
    List<Hit> out = new ArrayList<>(fused.size());
    fused.forEach((id, score) -> out.add(new Hit(id, (float) (double) score + 0.0f)));
    out.sort(Hit.RANKING);
    return out;
  }
}
