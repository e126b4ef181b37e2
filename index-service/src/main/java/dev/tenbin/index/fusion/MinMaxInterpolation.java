package dev.tenbin.index.fusion;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.rank.Hit;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Normalised linear interpolation: each ranking's scores are min-max normalised over its own list,
 * {@code (s − min) / (max − min)} in [0, 1], and the fused score is {@code Σ weight_i · norm_i(d)}.
 *
 * <ul>
 *   <li>A document missing from a ranking counts 0 there (as if it scored that list's minimum).
 *   <li>A ranking whose scores are all equal (including a single document) has no range: each of
 *       its documents counts 1 there (being retrieved beats being missing); an empty ranking adds
 *       nothing.
 * </ul>
 *
 * @param weights one finite, non-negative weight per ranking, in the rankings' order
 */
public record MinMaxInterpolation(List<Float> weights) implements RankFusion {
  public MinMaxInterpolation {
    weights = List.copyOf(weights);
    checkWeights(weights);
  }

  /** Every weight finite and not negative; throws naming {@code weights[i]}. */
  static void checkWeights(List<Float> weights) {
    for (int i = 0; i < weights.size(); i++) {
      float weight = weights.get(i);
      if (!Float.isFinite(weight) || weight < 0) {
        throw new InvalidInputException(
            "weights[" + i + "]", "a weight must be finite and not negative, got " + weight);
      }
    }
  }

  /** One weight per ranking; throws naming {@code weights}. */
  static void checkWeightCount(List<Float> weights, List<List<Hit>> rankings) {
    if (weights.size() != rankings.size()) {
      throw new InvalidInputException(
          "weights",
          "one weight per ranking is needed: "
              + rankings.size()
              + " rankings, "
              + weights.size()
              + " weights");
    }
  }

  /** Equal weights 1 / n for {@code n} rankings. */
  public static MinMaxInterpolation equalWeights(int n) {
    return new MinMaxInterpolation(Collections.nCopies(n, 1f / n));
  }

  @Override
  public List<Hit> fuse(List<List<Hit>> rankings) {
    checkWeightCount(weights, rankings);
    List<List<Hit>> lists = RankFusion.withoutRepeats(rankings);
    Map<String, Double> fused = new HashMap<>();
    for (int i = 0; i < lists.size(); i++) {
      List<Hit> ranking = lists.get(i);
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (Hit doc : ranking) {
        if (!Float.isFinite(doc.score())) {
          throw new InvalidInputException(
              "rankings[" + i + "]", "document '" + doc.docId() + "' has a NaN or infinite score");
        }
        min = Math.min(min, doc.score());
        max = Math.max(max, doc.score());
      }
      double weight = weights.get(i);
      for (Hit doc : ranking) {
        double normalised = max > min ? (doc.score() - min) / (max - min) : 1.0;
        fused.merge(doc.docId(), weight * normalised, Double::sum);
      }
    }
    return RankFusion.ranked(fused);
  }
}
