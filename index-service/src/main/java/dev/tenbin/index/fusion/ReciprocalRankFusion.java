package dev.tenbin.index.fusion;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.rank.Hit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reciprocal rank fusion (Cormack et al., 2009): {@code score(d) = Σ w_i / (k + rank_i(d))} over
 * the rankings i that contain d, with rank counted from 1 by position in the list (the input's
 * scores are not used, so documents tied in score still get consecutive ranks) and {@code w_i} the
 * ranking's weight (1 each when no weights are given: plain RRF). A document missing from a ranking
 * contributes 0 for it. Many documents share a fused score (e.g. rank 1 in one list only); they are
 * ordered by doc id.
 *
 * @param k the rank constant, at least 0: {@value #CANDIDATE_SET_K} for Tenbin's candidate sets,
 *     {@value #HYBRID_SEARCH_K} for hybrid search
 * @param weights one finite, non-negative weight per ranking, in the rankings' order; empty for 1
 *     each
 */
public record ReciprocalRankFusion(int k, List<Float> weights) implements RankFusion {
  public static final int CANDIDATE_SET_K = 100;
  public static final int HYBRID_SEARCH_K = 60;

  public ReciprocalRankFusion {
    if (k < 0) {
      throw new InvalidInputException("rrf_k", "rrf_k must not be negative, got " + k);
    }
    weights = List.copyOf(weights);
    MinMaxInterpolation.checkWeights(weights);
  }

  /** Plain RRF: every ranking weighs 1. */
  public ReciprocalRankFusion(int k) {
    this(k, List.of());
  }

  @Override
  public List<Hit> fuse(List<List<Hit>> rankings) {
    if (!weights.isEmpty()) {
      MinMaxInterpolation.checkWeightCount(weights, rankings);
    }
    List<List<Hit>> lists = RankFusion.withoutRepeats(rankings);
    Map<String, Double> fused = new HashMap<>();
    for (int i = 0; i < lists.size(); i++) {
      List<Hit> ranking = lists.get(i);
      double weight = weights.isEmpty() ? 1.0 : weights.get(i);
      for (int rank = 1; rank <= ranking.size(); rank++) {
        fused.merge(ranking.get(rank - 1).docId(), weight / ((double) k + rank), Double::sum);
      }
    }
    return RankFusion.ranked(fused);
  }
}
