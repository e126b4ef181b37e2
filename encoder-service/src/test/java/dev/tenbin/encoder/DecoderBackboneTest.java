package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.card.PaddingSide;
import dev.tenbin.model.card.Pooling;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Decoder-backbone embedders through the encoder core, on tiny decoder graphs whose output depends
 * on token, position and attention mask ({@link TinyOnnxModels#decoderEncoder}): padding sides,
 * position ids, last-token and mean pooling, EOS, instruction templates, fp16/bf16 outputs and 8K
 * inputs. Every vector is checked against a plain-Java computation of the graph.
 */
class DecoderBackboneTest {
  private static final int MAX_LENGTH = 64;
  private static final float SCALE = 0.3f;
  private static final String SHORT = "apple banana";
  private static final List<String> BATCH =
      List.of(
          "cherry date elder fig grape apple banana cherry date",
          SHORT,
          "fig grape apple banana cherry date elder fig grape apple banana cherry date elder");

  @TempDir Path tmp;

  private EncoderCore core() {
    return core(BatchingLimits.DEFAULT);
  }

  private EncoderCore core(BatchingLimits limits) {
    return new EncoderCore(
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
            .withBatching(limits));
  }

  private static TinyModels.Decoder settings(PaddingSide side, String eos) {
    return new TinyModels.Decoder(side.name().toLowerCase(Locale.ROOT), eos, "", "", "");
  }

  /** The graph's last_hidden_state of one unpadded input, in double precision. */
  static double[][] reference(long[] ids, boolean causal, int maxLength, float scale) {
    float[] tokens =
        TinyModels.decoderTable(TinyModels.DECODER_VOCABULARY, TinyModels.DECODER_SEED, scale);
    float[] positions = TinyModels.decoderTable(maxLength, TinyModels.DECODER_SEED + 1, scale);
    int hidden = TinyModels.HIDDEN;
    double[][] states = new double[ids.length][hidden];
    double[] total = new double[hidden];
    for (int t = 0; t < ids.length; t++) {
      for (int h = 0; h < hidden; h++) {
        states[t][h] = tokens[(int) ids[t] * hidden + h] + positions[t * hidden + h];
        total[h] += states[t][h];
      }
    }
    double[][] out = new double[ids.length][hidden];
    double[] running = new double[hidden];
    for (int t = 0; t < ids.length; t++) {
      for (int h = 0; h < hidden; h++) {
        running[h] += states[t][h];
        out[t][h] = Math.tanh(states[t][h] + (causal ? running[h] : total[h]));
      }
    }
    return out;
  }

  static double[] pooled(double[][] states, Pooling pooling) {
    int hidden = states[0].length;
    return switch (pooling) {
      case CLS -> states[0];
      case LAST_TOKEN -> states[states.length - 1];
      case MEAN -> {
        double[] mean = new double[hidden];
        for (double[] row : states) {
          for (int h = 0; h < hidden; h++) {
            mean[h] += row[h] / states.length;
          }
        }
        yield mean;
      }
    };
  }

  private static void assertClose(float[] actual, double[] expected, double tolerance) {
    assertThat(actual).hasSize(expected.length);
    for (int h = 0; h < expected.length; h++) {
      assertThat((double) actual[h]).isCloseTo(expected[h], within(tolerance));
    }
  }

  @ParameterizedTest(name = "{0} pooling, causal={1}, {2} padding")
  @CsvSource({
    "LAST_TOKEN, true, LEFT",
    "LAST_TOKEN, true, RIGHT",
    "LAST_TOKEN, false, LEFT",
    "LAST_TOKEN, false, RIGHT",
    "MEAN, true, LEFT",
    "MEAN, true, RIGHT",
    "MEAN, false, LEFT",
    "MEAN, false, RIGHT"
  })
  void aTextBatchedWithLongerTextsGetsTheVectorOfTheTextAlone(
      Pooling pooling, boolean causal, PaddingSide side) throws Exception {
    TinyModels.decoder(
        tmp.resolve("models"),
        "tiny-decoder",
        pooling.name(),
        causal,
        TinyOnnxModels.FLOAT,
        MAX_LENGTH,
        SCALE,
        settings(side, ""));
    try (EncoderCore core = core()) {
      assertThat(core.model("tiny-decoder").onnx().takesPositionIds()).isTrue();
      assertThat(core.model("tiny-decoder").onnx().takesTokenTypeIds()).isFalse();
      float[] alone =
          core.encodeDense("tiny-decoder", List.of(SHORT), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      var batched = core.encodeDense("tiny-decoder", BATCH, false, 0, Cancellation.NEVER);
      if (core.info("tiny-decoder").batchInvariance().invariant()) {
        assertThat(batched.batches()).as("one padded pass").isEqualTo(1);
        assertThat(batched.paddedTokens()).isGreaterThan(batched.inputTokens());
      } else {
        // The bidirectional graph sums over the padded row (ReduceSum), whose last bits may move
        // with the padding: the load's probe then finds it batch-dependent, and every text runs
        // alone, unpadded.
        assertThat(batched.batches()).as("one pass per text").isEqualTo(BATCH.size());
        assertThat(batched.paddedTokens()).isEqualTo(batched.inputTokens());
      }
      List<long[]> ids = List.of(core.tokenize("tiny-decoder", BATCH, false).ids());
      for (int i = 0; i < BATCH.size(); i++) {
        assertClose(
            batched.vectors().get(i),
            pooled(reference(ids.get(i), causal, MAX_LENGTH, SCALE), pooling),
            1e-5);
      }
      for (int h = 0; h < alone.length; h++) {
        assertThat(batched.vectors().get(1)[h]).isCloseTo(alone[h], within(1e-6f));
      }
    }
  }

  @Test
  void leftPaddingWithoutCountedPositionsWouldChangeTheVector() {
    // The check above can fail: positions counted from the padded slot 0 give another vector.
    long[] ids = {3, 4, 5};
    double[] right = pooled(reference(ids, true, MAX_LENGTH, SCALE), Pooling.LAST_TOKEN);
    long[] shifted = {0, 0, 3, 4, 5};
    double[][] wrong = reference(shifted, true, MAX_LENGTH, SCALE);
    assertThat(wrong[4][0]).isNotCloseTo(right[0], within(1e-3));
  }

  @Test
  void theEosTokenIsAppendedOnceWhereTheCardAsksForIt() throws Exception {
    TinyModels.decoder(
        tmp.resolve("models"),
        "with-eos",
        "LAST_TOKEN",
        true,
        TinyOnnxModels.FLOAT,
        4,
        SCALE,
        settings(PaddingSide.LEFT, "<|endoftext|>"));
    TinyModels.decoder(
        tmp.resolve("models"),
        "without-eos",
        "LAST_TOKEN",
        true,
        TinyOnnxModels.FLOAT,
        4,
        SCALE,
        settings(PaddingSide.LEFT, ""));
    try (EncoderCore core = core()) {
      List<String> texts =
          List.of("apple banana", "apple <|endoftext|>", "apple banana cherry date elder");
      long[][] with = core.tokenize("with-eos", texts, false).ids();
      long[][] without = core.tokenize("without-eos", texts, false).ids();
      assertThat(without[0]).containsExactly(3, 4);
      assertThat(with[0]).as("appended").containsExactly(3, 4, 2);
      assertThat(with[1]).as("already there, not doubled").containsExactly(3, 2);
      assertThat(with[2])
          .as("at the max length, the last token gives way")
          .containsExactly(3, 4, 5, 2);
      assertThat(without[2]).containsExactly(3, 4, 5, 6);
      assertThat(core.tokenStrings("with-eos", texts, false, Cancellation.NEVER))
          .containsExactly(
              new String[] {"apple", "banana", "<|endoftext|>"},
              new String[] {"apple", "<|endoftext|>"},
              new String[] {"apple", "banana", "cherry", "<|endoftext|>"});
      // The last-token vector is the EOS token's state.
      float[] vector =
          core.encodeDense("with-eos", List.of("apple banana"), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertClose(vector, pooled(reference(with[0], true, 4, SCALE), Pooling.LAST_TOKEN), 1e-5);
    }
  }

  @Test
  void anEosTokenOutsideTheVocabularyFailsAtLoad() throws Exception {
    TinyModels.decoder(
        tmp.resolve("models"),
        "bad-eos",
        "LAST_TOKEN",
        true,
        TinyOnnxModels.FLOAT,
        8,
        SCALE,
        settings(PaddingSide.LEFT, "</s>"));
    try (EncoderCore core = core()) {
      assertThatThrownBy(() -> core.model("bad-eos"))
          .isInstanceOf(PreconditionException.class)
          .hasMessageContaining("eos_token </s>");
    }
  }

  @Test
  void instructionTemplatesWrapQueriesAndDocumentsKeepTheirPlainText() throws Exception {
    TinyModels.decoder(
        tmp.resolve("models"),
        "instructed",
        "LAST_TOKEN",
        true,
        TinyOnnxModels.FLOAT,
        MAX_LENGTH,
        SCALE,
        new TinyModels.Decoder("left", "", "Instruct: {task}\nQuery: {text}", "", "fig grape"));
    try (EncoderCore core = core()) {
      long[] query = core.tokenize("instructed", List.of("apple"), true).ids()[0];
      long[] expanded =
          core.tokenize("instructed", List.of("Instruct: fig grape\nQuery: apple"), false).ids()[0];
      assertThat(query).containsExactly(expanded);
      // "instruct" and ":" are unknown to the tiny vocabulary; the task, "query" and the text are
      // not.
      assertThat(query).containsSubsequence(8L, 9L, 10L, 3L);
      assertThat(core.tokenize("instructed", List.of("apple"), false).ids()[0]).containsExactly(3);
    }
  }

  @ParameterizedTest(name = "output type {0}")
  @CsvSource({"10, 2e-3", "16, 1.6e-2"})
  void halfPrecisionOutputsArePooledInFp32(int outputType, double tolerance) throws Exception {
    TinyModels.decoder(
        tmp.resolve("models"),
        "half",
        "MEAN",
        false,
        outputType,
        MAX_LENGTH,
        SCALE,
        settings(PaddingSide.RIGHT, ""));
    try (EncoderCore core = core()) {
      assertThat(core.info("half").dtype())
          .isEqualTo(outputType == TinyOnnxModels.FLOAT16 ? "FLOAT16" : "BFLOAT16");
      var result = core.encodeDense("half", BATCH, false, 0, Cancellation.NEVER);
      long[][] ids = core.tokenize("half", BATCH, false).ids();
      for (int i = 0; i < BATCH.size(); i++) {
        assertClose(
            result.vectors().get(i),
            pooled(reference(ids[i], false, MAX_LENGTH, SCALE), Pooling.MEAN),
            tolerance);
      }
    }
  }

  @Test
  void an8kInputRunsWholeAndLongInputsGetPassesOfTheirOwn() throws Exception {
    int maxLength = 8192;
    float scale = 1e-4f;
    TinyModels.decoder(
        tmp.resolve("models"),
        "long",
        "LAST_TOKEN",
        true,
        TinyOnnxModels.FLOAT,
        maxLength,
        scale,
        settings(PaddingSide.LEFT, "<|endoftext|>"));
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 9000; i++) {
      text.append(TinyModels.WORDS.get(i % 7)).append(' ');
    }
    String longText = text.toString();
    // 16,384 tokens but 16,384 × 512 attention cells: two 8K inputs may not share a pass.
    BatchingLimits limits = new BatchingLimits(16_384, 256, 1000, Duration.ofMillis(2));
    try (EncoderCore core = core(limits)) {
      List<String> texts = List.of(longText, longText.substring(2), SHORT);
      var result = core.encodeDense("long", texts, false, 0, Cancellation.NEVER);
      long[][] ids = core.tokenize("long", texts, false).ids();
      assertThat(ids[0]).hasSize(maxLength);
      assertThat(ids[0][maxLength - 1]).isEqualTo(2);
      assertThat(result.batches()).as("each 8K input alone, the short one apart").isEqualTo(3);
      assertThat(result.paddedTokens()).isEqualTo(2L * maxLength + ids[2].length);
      List<double[]> expected = new ArrayList<>();
      for (long[] row : ids) {
        expected.add(pooled(reference(row, true, maxLength, scale), Pooling.LAST_TOKEN));
      }
      for (int i = 0; i < texts.size(); i++) {
        assertClose(result.vectors().get(i), expected.get(i), 1e-4);
      }
    }
  }
}
