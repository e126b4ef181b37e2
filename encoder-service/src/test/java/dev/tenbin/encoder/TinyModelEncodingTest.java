package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Encoding paths on small ONNX models the tests build: mean pooling, fp16, multi-vector, sparse.
 */
class TinyModelEncodingTest {
  @TempDir Path tmp;
  EncoderCore core;

  @BeforeEach
  void start() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.dense(models, "tiny-fp16", true);
    TinyModels.multiVector(models, "tiny-colbert");
    TinyModels.sparse(models, "tiny-splade");
    core = new EncoderCore(EncoderServiceConfig.embedded(models, tmp.resolve("cache")));
  }

  @AfterEach
  void stop() {
    core.close();
  }

  /** Mean of table rows for token ids, normalised, in double then rounded. */
  private static float[] expectedMean(float[] table, long[] ids, boolean roundToHalf) {
    int h = TinyModels.HIDDEN;
    double[] sum = new double[h];
    for (long id : ids) {
      for (int d = 0; d < h; d++) {
        float v = table[(int) id * h + d];
        sum[d] += roundToHalf ? Float.float16ToFloat(Float.floatToFloat16(v)) : v;
      }
    }
    double norm = 0;
    for (int d = 0; d < h; d++) {
      sum[d] /= ids.length;
      norm += sum[d] * sum[d];
    }
    float[] out = new float[h];
    for (int d = 0; d < h; d++) {
      out[d] = (float) (sum[d] / Math.sqrt(norm));
    }
    return out;
  }

  @Test
  void meanPoolingAveragesTheTokensOfTheInputWithSpecialTokensAndPrompt() {
    float[] table = TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 42);
    // Document "apple banana": [CLS]=2 apple=4 banana=5 [SEP]=3. Query adds the prompt "query"=11.
    float[] doc =
        core.encodeDense("tiny-dense", List.of("Apple banana"), false, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(doc)
        .containsExactly(expectedMean(table, new long[] {2, 4, 5, 3}, false), within(1e-6f));
    float[] query =
        core.encodeDense("tiny-dense", List.of("apple banana"), true, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(query)
        .containsExactly(expectedMean(table, new long[] {2, 11, 4, 5, 3}, false), within(1e-6f));
  }

  @Test
  void fp16ModelsAreAcceptedAndPooledInFp32() {
    float[] table = TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 42);
    EncodeResult<float[]> result =
        core.encodeDense("tiny-fp16", List.of("cherry date"), false, 0, Cancellation.NEVER);
    assertThat(core.model("tiny-fp16").dtype()).isEqualTo("FLOAT16");
    assertThat(result.vectors().getFirst())
        .containsExactly(expectedMean(table, new long[] {2, 6, 7, 3}, true), within(1e-6f));
  }

  @Test
  void anyTruncationUpToTheModelsWidthIsServedRenormalisedAndWiderIsRefused() {
    float[] full =
        core.encodeDense("tiny-dense", List.of("fig"), false, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    // 4 is the card's Matryoshka dimension; 3 is not, and is plain truncation when asked for.
    for (int dims : new int[] {4, 3}) {
      float[] cut =
          core.encodeDense("tiny-dense", List.of("fig"), false, dims, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertThat(cut).hasSize(dims);
      double norm = 0;
      for (int d = 0; d < dims; d++) {
        norm += (double) full[d] * full[d];
      }
      for (int d = 0; d < dims; d++) {
        assertThat(cut[d]).isCloseTo((float) (full[d] / Math.sqrt(norm)), within(1e-6f));
      }
    }
    for (int dims : new int[] {TinyModels.HIDDEN + 1, -1}) {
      assertThatThrownBy(
              () -> core.encodeDense("tiny-dense", List.of("fig"), false, dims, Cancellation.NEVER))
          .isInstanceOf(InvalidInputException.class)
          .extracting(e -> ((InvalidInputException) e).field())
          .isEqualTo("dimensions");
    }
  }

  @Test
  void multiVectorsKeepOneNormalisedVectorPerRealToken() {
    List<float[]> matrices =
        core.encodeMultiVector(
                "tiny-colbert", List.of("apple", "apple banana cherry"), false, Cancellation.NEVER)
            .vectors();
    assertThat(matrices.get(0)).hasSize(3 * TinyModels.HIDDEN);
    assertThat(matrices.get(1)).hasSize(5 * TinyModels.HIDDEN);
    double norm = 0;
    for (int d = 0; d < TinyModels.HIDDEN; d++) {
      norm += matrices.get(1)[d] * matrices.get(1)[d];
    }
    assertThat(norm).isCloseTo(1.0, within(1e-5));
  }

  @Test
  void sparseVectorsAreLogOnePlusReluMaxPooledOverTokens() {
    int v = TinyModels.VOCABULARY;
    int h = TinyModels.HIDDEN;
    float[] table = TinyOnnxModels.table(v, h, 44);
    float[] projection = TinyOnnxModels.table(h, v, 45);
    long[] ids = {2, 8, 3}; // [CLS] elder [SEP]
    float[] expected = new float[v];
    for (long id : ids) {
      for (int out = 0; out < v; out++) {
        float logit = 0;
        for (int d = 0; d < h; d++) {
          logit += table[(int) id * h + d] * projection[d * v + out];
        }
        expected[out] = Math.max(expected[out], (float) Math.log1p(Math.max(0, logit)));
      }
    }
    SparseVector sparse =
        core.encodeSparse("tiny-splade", List.of("elder"), false, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    for (int i = 0; i < sparse.indices().length; i++) {
      assertThat(sparse.values()[i]).isCloseTo(expected[sparse.indices()[i]], within(1e-5f));
    }
    long nonZero = 0;
    for (float e : expected) {
      nonZero += e > 0 ? 1 : 0;
    }
    assertThat(sparse.indices()).hasSize((int) nonZero);
    SparseVector top =
        core.encodeSparse("tiny-splade", List.of("elder"), false, 2, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(top.indices()).hasSize(2);
  }

  @Test
  void cudaIsRefusedAtStartWithWhatToDoWhenTheBuildHasNoCudaProvider() {
    Assumptions.assumeFalse(
        dev.tenbin.model.onnx.OnnxEnvironment.cudaAvailable(),
        "this build carries the CUDA provider");
    var config = EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"));
    var cuda = config.withRuntime(new dev.tenbin.model.onnx.OnnxModel.RuntimeOptions(1, true));
    assertThatThrownBy(() -> new EncoderCore(cuda))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Pgpu");
  }

  @Test
  void askingADenseModelForSparseVectorsIsRejected() {
    assertThatThrownBy(
            () -> core.encodeSparse("tiny-dense", List.of("fig"), false, 0, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("DENSE");
  }
}
