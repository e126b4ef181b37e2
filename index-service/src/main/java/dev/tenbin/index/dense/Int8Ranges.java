package dev.tenbin.index.dense;

import dev.tenbin.index.quantize.Int8Calibration;
import java.util.Arrays;

/**
 * The full-dimension int8 calibration of a growing collection, kept up to date batch by batch: the
 * per-dimension minimum and maximum of the stored vectors (dot) and of the same vectors normalised
 * as the cosine variant normalises them ({@link DenseSearcher#normalize}). A minimum and a maximum
 * do not depend on the order the vectors came in, so the ranges equal what {@link
 * DenseSearcher#int8Calibration} computes over the whole store, value for value, at the cost of the
 * new vectors only.
 */
public final class Int8Ranges {
  private final int dimension;
  private final float[][] min = new float[VectorSimilarity.values().length][];
  private final float[][] max = new float[VectorSimilarity.values().length][];
  private long vectors;

  public Int8Ranges(int dimension) {
    this.dimension = dimension;
  }

  /** Ranges over every vector of {@code store}, read in blocks. */
  public static Int8Ranges of(StoredVectors store) {
    Int8Ranges ranges = new Int8Ranges(store.dimension());
    float[] row = new float[store.dimension()];
    for (int d = 0; d < store.size(); d++) {
      store.row(d, row);
      ranges.add(row);
    }
    return ranges;
  }

  /** Widens the ranges to cover {@code vector} (full dimension). */
  public void add(float[] vector) {
    if (vector.length != dimension) {
      throw new IllegalArgumentException(
          "a vector of " + vector.length + " values where the store has " + dimension);
    }
    widen(VectorSimilarity.DOT, vector);
    float[] normalized = vector.clone();
    DenseSearcher.normalize(normalized, 0, dimension);
    widen(VectorSimilarity.COSINE, normalized);
    vectors++;
  }

  private void widen(VectorSimilarity similarity, float[] values) {
    int s = similarity.ordinal();
    if (min[s] == null) {
      min[s] = values.clone();
      max[s] = values.clone();
      return;
    }
    // The comparisons of Int8Calibration.of, so a range holds the same values.
    for (int d = 0; d < dimension; d++) {
      if (values[d] < min[s][d]) {
        min[s][d] = values[d];
      }
      if (values[d] > max[s][d]) {
        max[s][d] = values[d];
      }
    }
  }

  /** Whether no vector was added. */
  public boolean isEmpty() {
    return vectors == 0;
  }

  /** The calibration of {@code similarity}, or null before the first vector. */
  public Int8Calibration calibration(VectorSimilarity similarity) {
    int s = similarity.ordinal();
    return min[s] == null
        ? null
        : new Int8Calibration(Arrays.copyOf(min[s], dimension), Arrays.copyOf(max[s], dimension));
  }
}
