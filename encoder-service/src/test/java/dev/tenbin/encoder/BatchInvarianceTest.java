package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch-invariance probe at load and the encoding policy it chooses, on small ONNX models the
 * tests build: an embedding-table encoder (batch-invariant) and one that adds the mean of the whole
 * pass to every value (batch-dependent, as int8 graphs are).
 */
class BatchInvarianceTest {
  @TempDir Path tmp;
  EncoderCore core;

  @BeforeEach
  void start() throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.batchDependent(models, "tiny-batch-dependent");
    core = new EncoderCore(EncoderServiceConfig.embedded(models, tmp.resolve("cache")));
  }

  @AfterEach
  void stop() {
    core.close();
  }

  @Test
  void theProbeFindsABatchDependentModelAndChoosesOneTextPerPass() {
    BatchInvariance probe = core.info("tiny-batch-dependent").batchInvariance();
    assertThat(probe.invariant()).isFalse();
    assertThat(probe.policy()).isEqualTo(EncodingPolicy.ONE_TEXT_PER_PASS);
    assertThat(probe.comparedOutputs()).isEqualTo(6);
    assertThat(probe.differingOutputs()).isPositive();
    assertThat(probe.maxAbsDifference()).isPositive();
    assertThat(probe.compared())
        .startsWith("3 texts of ")
        .contains("passes of 2 inputs padded to")
        .endsWith(probe.differingOutputs() + " differ");
  }

  @Test
  void theProbeFindsAnEmbeddingTableBatchInvariantAndKeepsBatching() {
    BatchInvariance probe = core.info("tiny-dense").batchInvariance();
    assertThat(probe.invariant()).isTrue();
    assertThat(probe.policy()).isEqualTo(EncodingPolicy.BATCHED);
    assertThat(probe.differingOutputs()).isZero();
    assertThat(probe.maxAbsDifference()).isZero();
    assertThat(probe.compared()).endsWith("6 outputs compared bit for bit, 0 differ");
  }

  @Test
  void theRawBatchDependentModelGivesOtherBitsInsideAMixedPass() {
    // The control: without the policy the model's output for a text moves with its company, so
    // the equalities below are not true of any encoding.
    LoadedModel model = core.model("tiny-batch-dependent");
    long[][] ids = model.tokenizer().encode(List.of("apple", "banana cherry date elder")).ids();
    float[] alone = model.onnx().run(new long[][] {ids[0]}).values();
    float[] mixed = model.onnx().run(ids).values();
    int width = TinyModels.HIDDEN;
    float[] aloneFirstToken = java.util.Arrays.copyOf(alone, width);
    float[] mixedFirstToken = java.util.Arrays.copyOf(mixed, width);
    assertThat(mixedFirstToken).isNotEqualTo(aloneFirstToken);
  }

  @Test
  void aTextsVectorIsTheSameBitsAloneAsInsideAnyRequestOfABatchDependentModel() {
    String text = "apple banana";
    List<String> company =
        List.of("cherry", "date elder fig grape apple banana cherry date", text, "fig");
    for (boolean query : new boolean[] {false, true}) {
      float[] alone = dense(List.of(text), query).getFirst();
      float[] inside = dense(company, query).get(2);
      assertThat(bits(inside)).containsExactly(bits(alone));
      // Every text of the mixed request equals its own encoding alone.
      List<float[]> mixed = dense(company, query);
      for (int i = 0; i < company.size(); i++) {
        assertThat(bits(mixed.get(i)))
            .containsExactly(bits(dense(List.of(company.get(i)), query).getFirst()));
      }
    }
    // Requests that arrive together share the model's queue: still one text per pass.
    EncodeResult<float[]> served =
        core.encodeDense("tiny-batch-dependent", company, false, 0, Cancellation.NEVER);
    assertThat(served.batches()).isEqualTo(company.size());
  }

  @Test
  void concurrentRequestsDoNotChangeAVectorOfABatchDependentModel() {
    float[] alone = dense(List.of("apple banana"), false).getFirst();
    List<CompletableFuture<List<float[]>>> requests = new ArrayList<>();
    for (int r = 0; r < 8; r++) {
      List<String> texts = new ArrayList<>();
      for (int i = 0; i <= r; i++) {
        texts.add("date elder fig grape ".repeat(i + 1).strip());
      }
      texts.add("apple banana");
      requests.add(CompletableFuture.supplyAsync(() -> dense(texts, false)));
    }
    for (CompletableFuture<List<float[]>> request : requests) {
      assertThat(bits(request.join().getLast())).containsExactly(bits(alone));
    }
  }

  @Test
  void aBatchInvariantModelStillSharesPasses() {
    EncodeResult<float[]> served =
        core.encodeDense(
            "tiny-dense", List.of("apple", "banana", "cherry"), false, 0, Cancellation.NEVER);
    assertThat(served.batches()).isEqualTo(1);
  }

  private List<float[]> dense(List<String> texts, boolean query) {
    return core.encodeDense("tiny-batch-dependent", texts, query, 0, Cancellation.NEVER).vectors();
  }

  private static int[] bits(float[] vector) {
    int[] bits = new int[vector.length];
    for (int i = 0; i < vector.length; i++) {
      bits[i] = Float.floatToRawIntBits(vector[i]);
    }
    return bits;
  }
}
