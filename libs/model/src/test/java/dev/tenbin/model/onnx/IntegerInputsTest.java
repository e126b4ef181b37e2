package dev.tenbin.model.onnx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import org.junit.jupiter.api.Test;

/**
 * Exports declare their integer inputs as int64 (optimum) or int32: the session feeds each input in
 * the type its graph declares, and the numbers do not depend on which.
 */
class IntegerInputsTest {
  private static byte[] decoder(int inputType) {
    int maxLength = 16;
    return TinyOnnxModels.decoderEncoder(
        TinyModels.decoderTable(TinyModels.DECODER_VOCABULARY, TinyModels.DECODER_SEED, 0.5f),
        TinyModels.decoderTable(maxLength, TinyModels.DECODER_SEED + 1, 0.5f),
        TinyModels.DECODER_VOCABULARY,
        maxLength,
        TinyModels.HIDDEN,
        false,
        TinyOnnxModels.FLOAT,
        inputType);
  }

  @Test
  void anInt32GraphGivesTheVectorsOfItsInt64TwinUnderEitherPadding() {
    long[][] ids = {{3, 4}, {5, 6, 7, 8}};
    OnnxModel.RuntimeOptions cpu = OnnxModel.RuntimeOptions.cpu(1);
    try (OnnxModel int64 = new OnnxModel(decoder(TinyOnnxModels.INT64), cpu);
        OnnxModel int32 = new OnnxModel(decoder(TinyOnnxModels.INT32), cpu)) {
      for (boolean left : new boolean[] {false, true}) {
        OnnxModel.Output wide = int64.run(ids, null, left);
        OnnxModel.Output narrow = int32.run(ids, null, left);
        assertThat(narrow.shape()).containsExactly(wide.shape());
        assertThat(narrow.values()).containsExactly(wide.values());
      }
    }
  }
}
