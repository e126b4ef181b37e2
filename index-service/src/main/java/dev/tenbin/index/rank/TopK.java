package dev.tenbin.index.rank;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The one top-k of the index: the ranking order of hits inside a searcher, score descending then
 * doc id ascending (through {@code idOrder}, ordinal → position of its id in ascending id order,
 * the same order as {@link Hit#RANKING}), and a top-k selection of a score array in that order.
 * Shared by every exact searcher (dense, learned sparse, late interaction).
 *
 * <p>The order is total, so the selected set and its order are unique: they cannot depend on how
 * the scan was split across threads or in which order scores arrived.
 */
public final class TopK {
  private final int[] idOrder;
  private final Comparator<OrdinalHit> ranking;

  public TopK(int[] idOrder) {
    this.idOrder = idOrder;
    this.ranking = (a, b) -> compare(b.score(), b.ordinal(), a.score(), a.ordinal());
  }

  /** Best first: higher score, then smaller id. */
  public Comparator<OrdinalHit> ranking() {
    return ranking;
  }

  /**
   * Positive when (scoreA, ordinalA) ranks above (scoreB, ordinalB). Scores compare numerically, so
   * 0 and −0 tie (and are broken by id); a NaN, which validated finite inputs only give through
   * overflow, ranks above every number, as in {@link Float#compare}.
   */
  private int compare(float scoreA, int ordinalA, float scoreB, int ordinalB) {
    if (scoreA != scoreB) {
      int byScore = Float.compare(scoreA, scoreB);
      if (byScore != 0) {
        return byScore;
      }
    }
    return Integer.compare(idOrder[ordinalB], idOrder[ordinalA]);
  }

  /** A hit as returned: −0 becomes 0, so equal scores also look equal downstream. */
  public static OrdinalHit hit(int ordinal, float score) {
    return new OrdinalHit(ordinal, score + 0.0f);
  }

  /** The best {@code k} of {@code scores} (indexed by ordinal), best first. */
  public List<OrdinalHit> select(float[] scores, int k) {
    return select(scores, null, k);
  }

  /**
   * The best {@code k} of {@code scores} (indexed by ordinal) among the eligible ordinals, best
   * first.
   *
   * @param eligible which ordinals may be returned; null = all
   */
  public List<OrdinalHit> select(float[] scores, boolean[] eligible, int k) {
    Best best = best(Math.min(k, scores.length));
    for (int d = 0; d < scores.length; d++) {
      if (eligible == null || eligible[d]) {
        best.offer(d, scores[d]);
      }
    }
    return best.hits();
  }

  /** An empty {@link Best} of {@code k} hits. */
  public Best best(int k) {
    return new Best(k);
  }

  /**
   * The best {@code k} hits offered so far, in this ranking (a bounded heap, weakest at the root):
   * for a selection spread over threads, each offering blocks of scores to a {@code Best} of its
   * own, then merging them. Whatever the split, the merged hits are those of {@link #select} over
   * all the scores. Not thread-safe.
   */
  public final class Best {
    private final int k;
    private final int[] ordinals;
    private final float[] scores;
    private int filled;

    private Best(int k) {
      this.k = Math.max(0, k);
      this.ordinals = new int[this.k];
      this.scores = new float[this.k];
    }

    /**
     * Offers every score of a block: {@code blockScores[i]} is ordinal {@code firstOrdinal + i}'s.
     */
    public void offerBlock(float[] blockScores, int firstOrdinal) {
      offerBlock(blockScores, blockScores.length, firstOrdinal);
    }

    /**
     * Offers the first {@code count} scores of a block: {@code blockScores[i]} is ordinal {@code
     * firstOrdinal + i}'s.
     */
    public void offerBlock(float[] blockScores, int count, int firstOrdinal) {
      for (int i = 0; i < count; i++) {
        offer(firstOrdinal + i, blockScores[i]);
      }
    }

    /** Offers one hit. */
    public void offer(int ordinal, float score) {
      if (filled < k) {
        ordinals[filled] = ordinal;
        scores[filled] = score;
        siftUp(filled++);
      } else if (k > 0
          && score >= scores[0] // the common case, decided on the score alone
          && compare(score, ordinal, scores[0], ordinals[0]) > 0) {
        ordinals[0] = ordinal;
        scores[0] = score;
        siftDown();
      }
    }

    /** Offers {@code other}'s hits to this one; returns this. */
    public Best merge(Best other) {
      for (int i = 0; i < other.filled; i++) {
        offer(other.ordinals[i], other.scores[i]);
      }
      return this;
    }

    /** The hits, best first. */
    public List<OrdinalHit> hits() {
      List<OrdinalHit> hits = new ArrayList<>(filled);
      for (int i = 0; i < filled; i++) {
        hits.add(hit(ordinals[i], scores[i]));
      }
      hits.sort(ranking);
      return hits;
    }

    private int weaker(int a, int b) {
      return compare(scores[a], ordinals[a], scores[b], ordinals[b]);
    }

    private void swap(int a, int b) {
      int ordinal = ordinals[a];
      ordinals[a] = ordinals[b];
      ordinals[b] = ordinal;
      float score = scores[a];
      scores[a] = scores[b];
      scores[b] = score;
    }

    private void siftUp(int at) {
      while (at > 0) {
        int parent = (at - 1) >>> 1;
        if (weaker(parent, at) <= 0) {
          return;
        }
        swap(parent, at);
        at = parent;
      }
    }

    private void siftDown() {
      int at = 0;
      while (true) {
        int left = 2 * at + 1;
        if (left >= filled) {
          return;
        }
        int child = left + 1 < filled && weaker(left + 1, left) < 0 ? left + 1 : left;
        if (weaker(child, at) >= 0) {
          return;
        }
        swap(child, at);
        at = child;
      }
    }
  }

  /** Hits sorted into ranking order, best first (in place), returning the best {@code k}. */
  public List<OrdinalHit> sortAndCut(List<OrdinalHit> hits, int k) {
    hits.sort(ranking);
    return hits.size() > k ? new ArrayList<>(hits.subList(0, k)) : hits;
  }
}
