package dev.tenbin.index.fusion;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.rank.Hit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reciprocal rank fusion (Cormack et al., 2009): {@code score(d) = Σ 1 / (k + rank_i(d))} over the
 * rankings i that contain d, with rank counted from 1 by position in the list (the input's scores
 * are not used, so documents tied in score still get consecutive ranks). A document missing from a
 * ranking contributes 0 for it. Many documents share a fused score (e.g. rank 1 in one list only);
 * they are ordered by doc id.
 *
 * @param k the rank constant, at least 0: {@value #CANDIDATE_SET_K} for Tenbin's candidate sets,
 *     {@value #HYBRID_SEARCH_K} for hybrid search
 */
public record ReciprocalRankFusion(int k) implements RankFusion {
  public static final int CANDIDATE_SET_K = 100;
  public static final int HYBRID_SEARCH_K = 60;

  public ReciprocalRankFusion {
    if (k < 0) {
      throw new InvalidInputException("rrf_k", "rrf_k must not be negative, got " + k);
    }
  }

  @Override
  public List<Hit> fuse(List<List<Hit>> rankings) {
    Map<String, Double> fused = new HashMap<>();
    for (List<Hit> ranking : RankFusion.withoutRepeats(rankings)) {
      for (int rank = 1; rank <= ranking.size(); rank++) {
        fused.merge(ranking.get(rank - 1).docId(), 1.0 / ((double) k + rank), Double::sum);
      }
    }
    return RankFusion.ranked(fused);
  }
}
