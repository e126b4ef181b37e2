package dev.tenbin.index.multivector;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DotProduct;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Exact late interaction: score(d) = Σ over query tokens of the largest dot product with any token
 * of d, over the whole corpus or a candidate set, FP32 with the deterministic SIMD dot product;
 * ties by doc id.
 */
public final class MaxSimSearcher {
  private final List<TokenVectors> docs;
  private final int dimension;
  private final int[] idOrder;

  public MaxSimSearcher(List<TokenVectors> docs, int dimension, int[] idOrder) {
    this.docs = docs;
    this.dimension = dimension;
    this.idOrder = idOrder;
  }

  /** A hit: document ordinal and score. */
  public record Hit(int ordinal, float score) {}

  public float score(TokenVectors query, int ordinal) {
    TokenVectors doc = docs.get(ordinal);
    float sum = 0;
    float[] q = new float[dimension];
    for (int t = 0; t < query.tokens(); t++) {
      System.arraycopy(query.values(), t * dimension, q, 0, dimension);
      float best = Float.NEGATIVE_INFINITY;
      for (int u = 0; u < doc.tokens(); u++) {
        best = Math.max(best, DotProduct.dot(q, doc.values(), u * dimension, dimension));
      }
      sum += best;
    }
    return sum;
  }

  public List<Hit> search(TokenVectors query, int k, Cancellation cancellation) {
    PriorityQueue<Hit> heap = new PriorityQueue<>(k + 1, this::worseFirst);
    for (int d = 0; d < docs.size(); d++) {
      if ((d & 255) == 0) {
        cancellation.throwIfCancelled();
      }
      Hit hit = new Hit(d, score(query, d));
      if (heap.size() < k) {
        heap.add(hit);
      } else if (worseFirst(hit, heap.peek()) > 0) {
        heap.poll();
        heap.add(hit);
      }
    }
    List<Hit> hits = new ArrayList<>(heap);
    hits.sort((a, b) -> worseFirst(b, a));
    return hits;
  }

  private int worseFirst(Hit a, Hit b) {
    int byScore = Float.compare(a.score(), b.score());
    return byScore != 0 ? byScore : Integer.compare(idOrder[b.ordinal()], idOrder[a.ordinal()]);
  }
}
