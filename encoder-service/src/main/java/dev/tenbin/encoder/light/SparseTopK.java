package dev.tenbin.encoder.light;

import dev.tenbin.encoder.SparseVector;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Sparse query pruning: keep the {@code k} terms of highest weight (ties broken by the lower index,
 * so the result is deterministic), returned in ascending index order.
 */
final class SparseTopK {
  private SparseTopK() {}

  /** {@code vector} with only its {@code k} highest-weight terms; k = 0 or k ≥ size keeps all. */
  static SparseVector keep(SparseVector vector, int k) {
    int size = vector.indices().length;
    if (k == 0 || k >= size) {
      return vector;
    }
    int[] kept =
        IntStream.range(0, size)
            .boxed()
            .sorted(
                Comparator.comparingDouble((Integer i) -> -vector.values()[i])
                    .thenComparingInt(i -> vector.indices()[i]))
            .limit(k)
            .mapToInt(Integer::intValue)
            .sorted()
            .toArray();
    int[] indices = new int[k];
    float[] values = new float[k];
    for (int j = 0; j < k; j++) {
      indices[j] = vector.indices()[kept[j]];
      values[j] = vector.values()[kept[j]];
    }
    return new SparseVector(indices, values);
  }
}
