package dev.tenbin.model.onnx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.models.TinyOnnxModels;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link OnnxModel#lastTokenColumns}: a few columns of each input's last position read from a
 * [batch, sequence, vocabulary] output without that output on the Java heap.
 */
class LastTokenColumnsTest {
  private static final int VOCABULARY = 12;
  private static final int HIDDEN = 8;

  /** Logits 100,000 wide: four 9-token inputs give 3.6 million values, 14.4 MB in FP32. */
  private static final int LOGITS_WIDTH = 100_000;

  private static final long[][] IDS = {
    {2, 5, 7, 3}, {2, 4, 4, 6, 8, 9, 10, 11, 3}, {2, 11, 3}, {2, 6, 3, 7, 3}
  };
  private static final long[] COLUMNS = {17, 99_999, 0};

  private static OnnxModel model(boolean fp16, boolean declareWidth) {
    return new OnnxModel(
        TinyOnnxModels.languageModelHead(
            TinyOnnxModels.table(VOCABULARY, HIDDEN, 1),
            TinyOnnxModels.table(HIDDEN, LOGITS_WIDTH, 2),
            VOCABULARY,
            HIDDEN,
            LOGITS_WIDTH,
            fp16,
            declareWidth),
        OnnxModel.RuntimeOptions.cpu(1));
  }

  @ParameterizedTest(name = "fp16={0}, width declared={1}")
  @CsvSource({"false,true", "true,true", "false,false"})
  void theColumnsAreTheFullOutputsValuesAtEachInputsLastToken(boolean fp16, boolean declared) {
    try (OnnxModel model = model(fp16, declared)) {
      float[][] picked = model.lastTokenColumns(IDS, COLUMNS);
      OnnxModel.Output full = model.run(IDS);
      assertThat(picked).hasNumberOfRows(IDS.length);
      for (int b = 0; b < IDS.length; b++) {
        int offset = full.offset(b, IDS[b].length - 1);
        for (int c = 0; c < COLUMNS.length; c++) {
          assertThat(picked[b][c])
              .as("input %d column %d", b, COLUMNS[c])
              .isEqualTo(full.values()[offset + (int) COLUMNS[c]]);
        }
      }
      assertThat(model.outputWidth()).isEqualTo(LOGITS_WIDTH);
    }
  }

  @Test
  void bfloat16OutputsAreReadExactly() {
    try (OnnxModel model =
        new OnnxModel(
            TinyOnnxModels.decoderEncoder(
                TinyOnnxModels.table(VOCABULARY, HIDDEN, 3),
                TinyOnnxModels.table(16, HIDDEN, 4),
                VOCABULARY,
                16,
                HIDDEN,
                true,
                TinyOnnxModels.BFLOAT16),
            OnnxModel.RuntimeOptions.cpu(1))) {
      assertThat(model.outputType()).isEqualTo("BFLOAT16");
      long[] columns = {0, 5, 7};
      float[][] picked = model.lastTokenColumns(IDS, columns);
      OnnxModel.Output full = model.run(IDS);
      for (int b = 0; b < IDS.length; b++) {
        int offset = full.offset(b, IDS[b].length - 1);
        for (int c = 0; c < columns.length; c++) {
          assertThat(picked[b][c]).isEqualTo(full.values()[offset + (int) columns[c]]);
        }
      }
    }
  }

  @Test
  void theLastPositionsColumnsEqualAPlainComputationOfTheLogits() {
    float[] table = TinyOnnxModels.table(VOCABULARY, HIDDEN, 1);
    float[] projection = TinyOnnxModels.table(HIDDEN, LOGITS_WIDTH, 2);
    try (OnnxModel model = model(false, true)) {
      float[][] picked = model.lastTokenColumns(IDS, COLUMNS);
      for (int b = 0; b < IDS.length; b++) {
        int last = (int) IDS[b][IDS[b].length - 1];
        for (int c = 0; c < COLUMNS.length; c++) {
          double logit = 0;
          for (int d = 0; d < HIDDEN; d++) {
            logit += table[last * HIDDEN + d] * projection[d * LOGITS_WIDTH + (int) COLUMNS[c]];
          }
          assertThat((double) picked[b][c])
              .isCloseTo(logit, org.assertj.core.data.Offset.offset(1e-4));
        }
      }
    }
  }

  @Test
  void readingTheColumnsAllocatesFarLessHeapThanTheFp32Logits() {
    long fp32Logits = (long) IDS.length * 9 * LOGITS_WIDTH * Float.BYTES;
    try (OnnxModel model = model(true, true)) {
      model.lastTokenColumns(IDS, COLUMNS); // warm: first-run allocations are not the subject
      model.run(IDS);
      long picking = allocatedBytes(() -> model.lastTokenColumns(IDS, COLUMNS));
      long whole = allocatedBytes(() -> model.run(IDS));
      assertThat(whole)
          .as("run() copies every logit into an FP32 array")
          .isGreaterThanOrEqualTo(fp32Logits);
      assertThat(picking)
          .as("lastTokenColumns keeps %d values on the heap", IDS.length * COLUMNS.length)
          .isLessThan(fp32Logits / 100);
    }
  }

  /** Heap bytes this thread allocates while {@code work} runs. */
  private static long allocatedBytes(Supplier<?> work) {
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().threadId();
    long before = threads.getThreadAllocatedBytes(id);
    Object result = work.get();
    long after = threads.getThreadAllocatedBytes(id);
    assertThat(result).isNotNull();
    return after - before;
  }
}
