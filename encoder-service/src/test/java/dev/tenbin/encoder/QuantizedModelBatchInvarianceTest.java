package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built-in int8 model bge-small-en-v1.5-q, whose ONNX graph quantizes activations per pass: the
 * probe at load finds it batch-dependent, and it is then encoded one text per pass, so a text's
 * vector is the same bits alone and inside any request. Its FP32 sibling is found batch-invariant
 * and keeps batching.
 */
class QuantizedModelBatchInvarianceTest {
  static final String INT8 = "bge-small-en-v1.5-q";
  static final String FP32 = "bge-small-en-v1.5";
  static final List<String> TEXTS =
      List.of(
          "what is the capital of France",
          "Paris is the capital and largest city of France, with an estimated population of about"
              + " two million residents in an area of more than 105 square kilometres.",
          "Denver",
          "The Normans were the people who in the 10th and 11th centuries gave their name to"
              + " Normandy, a region in France.");

  @TempDir static Path tmp;
  static EncoderCore core;

  @BeforeAll
  static void start() {
    core =
        new EncoderCore(EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")));
  }

  @AfterAll
  static void stop() {
    core.close();
  }

  @Test
  void theInt8ModelIsFoundBatchDependentAtLoad() {
    BatchInvariance probe = core.info(INT8).batchInvariance();
    assertThat(probe.invariant()).isFalse();
    assertThat(probe.policy()).isEqualTo(EncodingPolicy.ONE_TEXT_PER_PASS);
    assertThat(probe.differingOutputs()).isPositive();
  }

  @Test
  void theRawInt8ModelGivesOtherBitsForATextInsideAMixedPass() {
    LoadedModel model = core.model(INT8);
    long[][] ids = model.tokenizer().encode(TEXTS).ids();
    var alone = model.onnx().run(new long[][] {ids[0]});
    var mixed = model.onnx().run(ids);
    int values = ids[0].length * alone.width();
    float[] own = Arrays.copyOfRange(alone.values(), 0, values);
    float[] inside = Arrays.copyOfRange(mixed.values(), mixed.offset(0, 0), values);
    assertThat(inside).isNotEqualTo(own);
  }

  @Test
  void anInt8TextsVectorIsTheSameBitsAloneAndInsideAMixedRequest() {
    for (boolean query : new boolean[] {true, false}) {
      List<float[]> together = dense(INT8, TEXTS, query);
      for (int i = 0; i < TEXTS.size(); i++) {
        float[] alone = dense(INT8, List.of(TEXTS.get(i)), query).getFirst();
        assertThat(together.get(i)).as("text %d, query %s", i, query).isEqualTo(alone);
      }
      List<String> reversed = TEXTS.reversed();
      List<float[]> other = dense(INT8, reversed, query);
      for (int i = 0; i < TEXTS.size(); i++) {
        assertThat(other.get(TEXTS.size() - 1 - i)).isEqualTo(together.get(i));
      }
    }
  }

  @Test
  void theFp32ModelIsFoundBatchInvariantAndKeepsBatching() {
    BatchInvariance probe = core.info(FP32).batchInvariance();
    assertThat(probe.invariant()).as(probe.compared()).isTrue();
    assertThat(probe.policy()).isEqualTo(EncodingPolicy.BATCHED);
    EncodeResult<float[]> served = core.encodeDense(FP32, TEXTS, false, 0, Cancellation.NEVER);
    assertThat(served.batches()).isLessThan(TEXTS.size());
  }

  private static List<float[]> dense(String model, List<String> texts, boolean query) {
    return core.encodeDense(model, texts, query, 0, Cancellation.NEVER).vectors();
  }
}
