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
    return select(scores, eligible, 0, scores.length, k);
  }

  /**
   * The best {@code k} of one block of scores, best first: {@code blockScores[i]} is the score of
   * ordinal {@code firstOrdinal + i} (a scan's block scored into a buffer of its own).
   */
  public List<OrdinalHit> selectBlock(float[] blockScores, int firstOrdinal, int k) {
    return select(
        blockScores, firstOrdinal, null, firstOrdinal, firstOrdinal + blockScores.length, k);
  }

  /** The best {@code k} of {@code scores[from, to)}, best first. */
  private List<OrdinalHit> select(float[] scores, boolean[] eligible, int from, int to, int k) {
    return select(scores, 0, eligible, from, to, k);
  }

  /**
   * The best {@code k} of ordinals [from, to), best first, ordinal d scored {@code scores[d −
   * base]}.
   */
  private List<OrdinalHit> select(
      float[] scores, int base, boolean[] eligible, int from, int to, int k) {
    int n = Math.min(k, to - from);
    if (n <= 0) {
      return List.of();
    }
    // A min-heap (weakest hit at the root) of ordinals, allocation-free while scanning.
    int[] heap = new int[n];
    int filled = 0;
    for (int d = from; d < to; d++) {
      if (eligible != null && !eligible[d]) {
        continue;
      }
      float score = scores[d - base];
      if (filled < n) {
        heap[filled] = d;
        siftUp(heap, filled++, scores, base);
        continue;
      }
      float weakest = scores[heap[0] - base];
      if (score < weakest) {
        continue; // the common case, decided on the score alone
      }
      if (compare(score, d, weakest, heap[0]) > 0) {
        heap[0] = d;
        siftDown(heap, n, scores, base);
      }
    }
    List<OrdinalHit> hits = new ArrayList<>(filled);
    for (int i = 0; i < filled; i++) {
      hits.add(hit(heap[i], scores[heap[i] - base]));
    }
    hits.sort(ranking);
    return hits;
  }

  /** Hits sorted into ranking order, best first (in place), returning the best {@code k}. */
  public List<OrdinalHit> sortAndCut(List<OrdinalHit> hits, int k) {
    hits.sort(ranking);
    return hits.size() > k ? new ArrayList<>(hits.subList(0, k)) : hits;
  }

  private void siftUp(int[] heap, int at, float[] scores, int base) {
    int child = heap[at];
    while (at > 0) {
      int parentAt = (at - 1) >>> 1;
      int parent = heap[parentAt];
      if (compare(scores[parent - base], parent, scores[child - base], child) <= 0) {
        break;
      }
      heap[at] = parent;
      at = parentAt;
    }
    heap[at] = child;
  }

  private void siftDown(int[] heap, int size, float[] scores, int base) {
    int at = 0;
    int item = heap[0];
    while (true) {
      int left = 2 * at + 1;
      if (left >= size) {
        break;
      }
      int weaker = left;
      int right = left + 1;
      if (right < size
          && compare(scores[heap[right] - base], heap[right], scores[heap[left] - base], heap[left])
              < 0) {
        weaker = right;
      }
      if (compare(scores[heap[weaker] - base], heap[weaker], scores[item - base], item) >= 0) {
        break;
      }
      heap[at] = heap[weaker];
      at = weaker;
    }
    heap[at] = item;
  }
}
