package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The int8 ranges kept batch by batch equal the searcher's calibration over the whole store. */
class Int8RangesTest {
  @Test
  void rangesGrownBatchByBatchEqualTheSearchersCalibrationValueForValue() {
    int dimension = 12;
    int size = 3_000;
    SplittableRandom random = new SplittableRandom(3);
    float[] vectors = new float[size * dimension];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = (float) (random.nextGaussian() * (1 + i % 5));
    }
    Int8Ranges ranges = new Int8Ranges(dimension);
    float[] row = new float[dimension];
    for (int d = 0; d < size; d++) {
      System.arraycopy(vectors, d * dimension, row, 0, dimension);
      ranges.add(row);
    }
    int[] idOrder = new int[size];
    for (int i = 0; i < size; i++) {
      idOrder[i] = i;
    }
    DenseSearcher searcher = new DenseSearcher(vectors, dimension, idOrder);
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      assertThat(ranges.calibration(similarity).min())
          .as(similarity.name())
          .containsExactly(searcher.int8Calibration(similarity, 0).min());
      assertThat(ranges.calibration(similarity).max())
          .as(similarity.name())
          .containsExactly(searcher.int8Calibration(similarity, 0).max());
    }
    assertThat(
            Int8Ranges.of(StoredVectors.of(vectors, dimension))
                .calibration(VectorSimilarity.COSINE)
                .min())
        .containsExactly(ranges.calibration(VectorSimilarity.COSINE).min());
  }
}
