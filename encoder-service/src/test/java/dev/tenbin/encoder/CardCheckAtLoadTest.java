package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A card is checked against the model when it loads: never a silent cut to the card's width. */
class CardCheckAtLoadTest {
  @TempDir Path tmp;
  Path models;
  EncoderCore core;

  @BeforeEach
  void start() {
    models = tmp.resolve("models");
    core = new EncoderCore(EncoderServiceConfig.embedded(models, tmp.resolve("cache")));
  }

  @AfterEach
  void stop() {
    core.close();
  }

  /** A tiny dense model (8 wide) whose card says {@code dimension} and Matryoshka dims. */
  private void tiny(String id, int dimension, List<Integer> matryoshka) throws IOException {
    Path folder = TinyModels.dense(models, id, false);
    ModelCard card = LocalModelDirectory.readCard(folder);
    LocalModelDirectory.writeCard(
        folder,
        new ModelCard(
            card.id(),
            card.revision(),
            card.source(),
            card.onnxFile(),
            card.tokenizerFile(),
            card.pooling(),
            card.normalize(),
            dimension,
            matryoshka,
            card.maxLength(),
            card.queryPrompt(),
            card.documentPrompt(),
            card.outputKind(),
            card.totalParameters(),
            card.activeParameters(),
            card.resolvedSha()));
  }

  @Test
  void aCardNarrowerThanTheModelsOutputIsAnErrorAtLoadNotATruncation() throws IOException {
    tiny("narrow", TinyModels.HIDDEN - 2, List.of());
    assertThatThrownBy(
            () -> core.encodeDense("narrow", List.of("apple"), false, 0, Cancellation.NEVER))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("dimension " + (TinyModels.HIDDEN - 2))
        .hasMessageContaining("outputs " + TinyModels.HIDDEN)
        .extracting(e -> ((PreconditionException) e).field())
        .isEqualTo("card.dimension");
    assertThat(core.loadedModels()).doesNotContain("narrow");
  }

  @Test
  void aCardWithoutADimensionServesTheModelsFullWidth() throws IOException {
    tiny("open", 0, List.of());
    float[] vector =
        core.encodeDense("open", List.of("apple"), false, 0, Cancellation.NEVER)
            .vectors()
            .getFirst();
    assertThat(vector).hasSize(TinyModels.HIDDEN);
    assertThat(core.info("open").card().dimension()).isEqualTo(TinyModels.HIDDEN);
    assertThat(core.availableModels())
        .filteredOn(card -> card.id().equals("open"))
        .singleElement()
        .extracting(ModelCard::dimension)
        .isEqualTo(TinyModels.HIDDEN);
  }

  @Test
  void matryoshkaDimensionsBeyondTheOutputAreRefused() throws IOException {
    tiny("claims", 0, List.of(16, 4));
    assertThatThrownBy(() -> core.model("claims"))
        .isInstanceOf(PreconditionException.class)
        .extracting(e -> ((PreconditionException) e).field())
        .isEqualTo("card.matryoshka_dimensions");
  }

  @Test
  void aLocalCardThatDisagreesWithItsSentenceTransformersPoolingIsRefused() throws IOException {
    tiny("pooled", 0, List.of());
    Path folder = models.resolve("pooled");
    Files.writeString(
        folder.resolve("modules.json"),
        "[{\"idx\":0,\"name\":\"0\",\"path\":\"\",\"type\":\"sentence_transformers.models.Transformer\"},"
            + "{\"idx\":1,\"name\":\"1\",\"path\":\"1_Pooling\",\"type\":\"sentence_transformers.models.Pooling\"},"
            + "{\"idx\":2,\"name\":\"2\",\"path\":\"2_Normalize\",\"type\":\"sentence_transformers.models.Normalize\"}]");
    Files.createDirectories(folder.resolve("1_Pooling"));
    Files.writeString(
        folder.resolve("1_Pooling/config.json"), "{\"pooling_mode_cls_token\": true}");
    assertThatThrownBy(() -> core.model("pooled"))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("pooling MEAN")
        .extracting(e -> ((PreconditionException) e).field())
        .isEqualTo("card.pooling");
  }
}
