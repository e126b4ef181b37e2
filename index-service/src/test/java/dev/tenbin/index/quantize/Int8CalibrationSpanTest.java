package dev.tenbin.index.quantize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Int8CalibrationSpanTest {
  @Test
  void spanningTheCalibrationsOfPartsEqualsCalibratingTheWhole() {
    Random random = new Random(9);
    int dims = 7;
    float[] vectors = new float[50 * dims];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = (float) (random.nextGaussian() * 3);
    }
    Int8Calibration whole = Int8Calibration.of(vectors, dims);
    for (int cut = 1; cut < 50; cut += 7) {
      Int8Calibration head = Int8Calibration.of(Arrays.copyOf(vectors, cut * dims), dims);
      Int8Calibration tail =
          Int8Calibration.of(Arrays.copyOfRange(vectors, cut * dims, vectors.length), dims);
      assertThat(head.span(tail)).as("cut at %d", cut).isEqualTo(whole);
      assertThat(tail.span(head)).isEqualTo(whole);
    }
  }

  @Test
  void calibrationsOfDifferentDimensionsDoNotSpan() {
    Int8Calibration two = Int8Calibration.of(new float[] {1, 2}, 2);
    Int8Calibration three = Int8Calibration.of(new float[] {1, 2, 3}, 3);
    assertThatThrownBy(() -> two.span(three))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 and 3");
  }
}
