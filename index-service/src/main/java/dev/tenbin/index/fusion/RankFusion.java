package dev.tenbin.index.fusion;

import dev.tenbin.core.InvalidInputException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuses several rankings of one query into one: {@link ReciprocalRankFusion} or
 * {@link MinMaxInterpolation}.
 *
 * <p>Input rankings are lists of (doc id, score) in rank order, best first. A doc id listed twice
 * in one ranking counts once, at its first (best) place. The fused ranking holds every document of
 * any input, with FP32 scores (accumulated in double, rounded once), ordered by fused score
 * descending, then doc id ascending ({@link String#compareTo}); since the order compares the
 * rounded scores, it is always consistent with the scores returned.
 */
public sealed interface RankFusion permits ReciprocalRankFusion, MinMaxInterpolation {
  /** Ranking order: score descending, then doc id ascending. */
  Comparator<RankedDoc> ORDER =
      Comparator.comparing(RankedDoc::score, (a, b) -> a.floatValue() == b.floatValue() ? 0 : Float.compare(b, a))
          .thenComparing(RankedDoc::docId);

  /** The fused ranking of {@code rankings}, all of it. */
  List<RankedDoc> fuse(List<List<RankedDoc>> rankings);

  /** {@link ReciprocalRankFusion} with constant {@code k}, cut to {@code topK} (0 = all). */
  static List<RankedDoc> reciprocalRank(List<List<RankedDoc>> rankings, int k, int topK) {
    return top(new ReciprocalRankFusion(k).fuse(rankings), topK);
  }

  /** {@link MinMaxInterpolation} with one weight per ranking, cut to {@code topK} (0 = all). */
  static List<RankedDoc> linear(List<List<RankedDoc>> rankings, List<Float> weights, int topK) {
    return top(new MinMaxInterpolation(weights).fuse(rankings), topK);
  }

  /** The first {@code topK} of a fused ranking; 0 or less keeps all. */
  static List<RankedDoc> top(List<RankedDoc> fused, int topK) {
    return topK > 0 && fused.size() > topK ? new ArrayList<>(fused.subList(0, topK)) : fused;
  }

  /** Each ranking's documents in rank order without repeats (first place kept). */
  static List<List<RankedDoc>> withoutRepeats(List<List<RankedDoc>> rankings) {
    List<List<RankedDoc>> out = new ArrayList<>(rankings.size());
    for (int r = 0; r < rankings.size(); r++) {
      List<RankedDoc> ranking = rankings.get(r);
      if (ranking == null) {
        throw new InvalidInputException("rankings[" + r + "]", "a ranking is required (it may be empty)");
      }
      Map<String, RankedDoc> first = new LinkedHashMap<>();
      for (RankedDoc doc : ranking) {
        if (doc == null || doc.docId() == null) {
          throw new InvalidInputException("rankings[" + r + "]", "every ranked document needs a doc id");
        }
        first.putIfAbsent(doc.docId(), doc);
      }
      out.add(new ArrayList<>(first.values()));
    }
    return out;
  }

  /** Fused double scores rounded to FP32 and sorted into ranking order. */
  static List<RankedDoc> ranked(Map<String, Double> fused) {
    List<RankedDoc> out = new ArrayList<>(fused.size());
    fused.forEach((id, score) -> out.add(new RankedDoc(id, (float) (double) score + 0.0f)));
    out.sort(ORDER);
    return out;
  }
}
