package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class DotProductTest {
  @Test
  void fourQueriesAtOnceScoreBitIdenticallyToOneAtATime() {
    Random random = new Random(2);
    for (int length = 0; length <= 70; length++) {
      float[][] queries = new float[4][length];
      for (float[] query : queries) {
        for (int i = 0; i < length; i++) {
          query[i] = (float) random.nextGaussian();
        }
      }
      float[] docs = new float[3 + length];
      for (int i = 0; i < docs.length; i++) {
        docs[i] = (float) random.nextGaussian();
      }
      float[] four = new float[5];
      DotProduct.dot4(queries[0], queries[1], queries[2], queries[3], docs, 3, length, four, 1);
      for (int q = 0; q < 4; q++) {
        assertThat(four[q + 1])
            .as("length %d query %d", length, q)
            .isEqualTo(DotProduct.dot(queries[q], docs, 3, length));
      }
    }
  }

  @Test
  void oneQueryAgainstFourDocumentsScoresBitIdenticallyToOneDocumentAtATime() {
    Random random = new Random(3);
    for (int length = 0; length <= 70; length++) {
      float[] query = new float[length];
      for (int i = 0; i < length; i++) {
        query[i] = (float) random.nextGaussian();
      }
      float[] docs = new float[5 + 4 * length];
      for (int i = 0; i < docs.length; i++) {
        docs[i] = (float) random.nextGaussian();
      }
      float[] out = new float[6];
      DotProduct.dotFour(query, docs, 5, length, out, 2);
      for (int d = 0; d < 4; d++) {
        assertThat(out[d + 2])
            .as("length %d document %d", length, d)
            .isEqualTo(DotProduct.dot(query, docs, 5 + d * length, length));
      }
    }
  }

  @Test
  void theDotProductIsWithinFloatRoundingOfTheExactOne() {
    Random random = new Random(4);
    for (int length = 0; length <= 300; length += 7) {
      float[] a = new float[length];
      float[] b = new float[length];
      double exact = 0;
      double magnitude = 0;
      for (int i = 0; i < length; i++) {
        a[i] = (float) random.nextGaussian();
        b[i] = (float) random.nextGaussian();
        exact += (double) a[i] * b[i];
        magnitude += Math.abs((double) a[i] * b[i]);
      }
      assertThat((double) DotProduct.dot(a, b, 0, length))
          .isCloseTo(exact, within(4e-6 * magnitude + 1e-30));
    }
  }
}
