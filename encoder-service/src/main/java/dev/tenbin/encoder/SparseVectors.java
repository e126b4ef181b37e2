package dev.tenbin.encoder;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/** Operations on sparse vectors. */
public final class SparseVectors {
  private SparseVectors() {}

  /** The {@code k} entries of largest |weight| (ties by smaller id), ids ascending. */
  public static SparseVector topK(SparseVector vector, int k) {
    if (vector.indices().length <= k) {
      return vector;
    }
    int[] order =
        IntStream.range(0, vector.indices().length)
            .boxed()
            .sorted(
                Comparator.<Integer>comparingDouble(i -> -Math.abs(vector.values()[i]))
                    .thenComparingInt(i -> vector.indices()[i]))
            .limit(k)
            .mapToInt(Integer::intValue)
            .sorted()
            .toArray();
    int[] indices = new int[order.length];
    float[] values = new float[order.length];
    for (int i = 0; i < order.length; i++) {
      indices[i] = vector.indices()[order[i]];
      values[i] = vector.values()[order[i]];
    }
    return new SparseVector(indices, Arrays.copyOf(values, values.length));
  }
}
