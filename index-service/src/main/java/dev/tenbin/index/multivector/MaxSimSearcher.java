package dev.tenbin.index.multivector;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DotProduct;
import dev.tenbin.index.rank.OrdinalHit;
import dev.tenbin.index.rank.TopK;
import java.util.List;

/**
 * Exact late interaction: score(d) = Σ over query tokens of the largest dot product with any token
 * of d, over the whole corpus or a candidate set, FP32 with the deterministic SIMD dot product;
 * ties by doc id.
 */
public final class MaxSimSearcher {
  private final List<TokenVectors> docs;
  private final int dimension;
  private final TopK topK;

  public MaxSimSearcher(List<TokenVectors> docs, int dimension, int[] idOrder) {
    this.docs = docs;
    this.dimension = dimension;
    this.topK = new TopK(idOrder);
  }

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

  public List<OrdinalHit> search(TokenVectors query, int k, Cancellation cancellation) {
    float[] scores = new float[docs.size()];
    for (int d = 0; d < scores.length; d++) {
      if ((d & 255) == 0) {
        cancellation.throwIfCancelled();
      }
      scores[d] = score(query, d);
    }
    return topK.select(scores, null, k);
  }
}
