package dev.tenbin.index.rank;

import java.util.PriorityQueue;

/**
 * Selects the top {@code k} documents of a score array under Tenbin's tie policy: score
 * descending, then document id ascending ({@code idOrder[ordinal]} is the position of the
 * document's id in ascending id order). Shared by every exact searcher of the index.
 */
public final class TopK {
  private TopK() {}

  /**
   * Ordinals of the best {@code k} documents, best first.
   *
   * @param scores score per ordinal
   * @param eligible which ordinals may be returned; null = all
   * @param k how many
   * @param idOrder ordinal → rank of its id in ascending order
   */
  public static int[] select(float[] scores, boolean[] eligible, int k, int[] idOrder) {
    // A min-heap of the current best: its head is the weakest kept document.
    PriorityQueue<Integer> heap = new PriorityQueue<>(k + 1, (a, b) -> compare(a, b, scores, idOrder));
    for (int d = 0; d < scores.length; d++) {
      if (eligible != null && !eligible[d]) {
        continue;
      }
      if (heap.size() < k) {
        heap.add(d);
      } else if (compare(d, heap.peek(), scores, idOrder) > 0) {
        heap.poll();
        heap.add(d);
      }
    }
    int[] ordinals = new int[heap.size()];
    for (int i = ordinals.length - 1; i >= 0; i--) {
      ordinals[i] = heap.poll();
    }
    return ordinals;
  }

  /** Positive when ordinal {@code a} ranks above {@code b}. */
  public static int compare(int a, int b, float[] scores, int[] idOrder) {
    int byScore = Float.compare(scores[a], scores[b]);
    return byScore != 0 ? byScore : Integer.compare(idOrder[b], idOrder[a]);
  }
}
