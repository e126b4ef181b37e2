package dev.tenbin.model.card;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.PreconditionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CardCheckTest {
  @TempDir Path folder;

  private static ModelCard card(
      int dimension, List<Integer> matryoshka, Pooling pooling, int maxLength, String query) {
    return new ModelCard(
        "m",
        "r",
        "dir:/models/m",
        null,
        null,
        pooling,
        true,
        dimension,
        matryoshka,
        maxLength,
        query,
        "",
        OutputKind.DENSE,
        0,
        0,
        null);
  }

  private static ModelCard card(int dimension) {
    return card(dimension, List.of(), Pooling.CLS, 512, "");
  }

  private static String field(Throwable e) {
    return ((PreconditionException) e).field();
  }

  @Test
  void aCardWithoutADimensionTakesTheGraphsWidth() {
    ModelCard checked = CardCheck.againstGraph(card(0), new CardCheck.Observed(512, 512));
    assertThat(checked.dimension()).isEqualTo(512);
    assertThat(checked.id()).isEqualTo("m");
  }

  @Test
  void aCardNarrowerThanTheGraphIsRefusedWithBothWidthsNotCut() {
    assertThatThrownBy(() -> CardCheck.againstGraph(card(384), new CardCheck.Observed(512, 512)))
        .isInstanceOf(PreconditionException.class)
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.dimension"))
        .hasMessageContaining("dimension 384")
        .hasMessageContaining("outputs 512")
        .hasMessageContaining("\"dimension\": 512");
  }

  @Test
  void aCardThatAgreesWithTheGraphIsKeptAsWritten() {
    ModelCard card = card(384, List.of(256, 128), Pooling.CLS, 512, "q: ");
    assertThat(CardCheck.againstGraph(card, new CardCheck.Observed(384, 512))).isEqualTo(card);
  }

  @Test
  void matryoshkaDimensionsMustLieWithinTheOutput() {
    assertThatThrownBy(
            () ->
                CardCheck.againstGraph(
                    card(0, List.of(768, 256), Pooling.CLS, 512, ""),
                    new CardCheck.Observed(384, 0)))
        .isInstanceOf(PreconditionException.class)
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.matryoshka_dimensions"));
  }

  @Test
  void aMaxLengthBeyondThePositionTableIsRefused() {
    assertThatThrownBy(
            () ->
                CardCheck.againstGraph(
                    card(384, List.of(), Pooling.CLS, 1024, ""), new CardCheck.Observed(384, 512)))
        .isInstanceOf(PreconditionException.class)
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.max_length"))
        .hasMessageContaining("512 position embeddings");
  }

  private void sentenceTransformers(
      String pooling, boolean normalize, int maxLength, String prompts) throws IOException {
    Files.writeString(
        folder.resolve("modules.json"),
        "[{\"idx\":0,\"name\":\"0\",\"path\":\"\",\"type\":\"sentence_transformers.models.Transformer\"},"
            + "{\"idx\":1,\"name\":\"1\",\"path\":\"1_Pooling\",\"type\":\"sentence_transformers.models.Pooling\"}"
            + (normalize
                ? ",{\"idx\":2,\"name\":\"2\",\"path\":\"2_Normalize\",\"type\":\"sentence_transformers.models.Normalize\"}"
                : "")
            + "]");
    Files.createDirectories(folder.resolve("1_Pooling"));
    Files.writeString(
        folder.resolve("1_Pooling/config.json"),
        "{\"word_embedding_dimension\": 384, \"pooling_mode_" + pooling + "\": true}");
    Files.writeString(
        folder.resolve("sentence_bert_config.json"), "{\"max_seq_length\": " + maxLength + "}");
    Files.writeString(
        folder.resolve("config_sentence_transformers.json"), "{\"prompts\": " + prompts + "}");
  }

  @Test
  void aCardThatMatchesItsSentenceTransformersFilesLoads() throws IOException {
    sentenceTransformers("cls_token", true, 512, "{\"query\": \"q: \", \"document\": \"\"}");
    CardCheck.againstSentenceTransformers(card(384, List.of(), Pooling.CLS, 512, "q: "), folder);
    CardCheck.againstSentenceTransformers(card(0, List.of(), Pooling.CLS, 512, "q: "), folder);
  }

  @Test
  void aFolderWithoutSentenceTransformersFilesChecksNothing() {
    CardCheck.againstSentenceTransformers(card(384, List.of(), Pooling.MEAN, 512, "x"), folder);
  }

  @Test
  void eachDisagreementWithTheSentenceTransformersFilesNamesTheCardField() throws IOException {
    sentenceTransformers("mean_tokens", true, 512, "{}");
    assertThatThrownBy(
            () ->
                CardCheck.againstSentenceTransformers(
                    card(384, List.of(), Pooling.CLS, 512, ""), folder))
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.pooling"))
        .hasMessageContaining("pooling CLS")
        .hasMessageContaining("says MEAN");

    sentenceTransformers("cls_token", false, 512, "{}");
    assertThatThrownBy(
            () ->
                CardCheck.againstSentenceTransformers(
                    card(384, List.of(), Pooling.CLS, 512, ""), folder))
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.normalize"));

    sentenceTransformers("cls_token", true, 256, "{}");
    assertThatThrownBy(
            () ->
                CardCheck.againstSentenceTransformers(
                    card(384, List.of(), Pooling.CLS, 512, ""), folder))
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.max_length"))
        .hasMessageContaining("max_seq_length 256");

    sentenceTransformers("cls_token", true, 512, "{}");
    assertThatThrownBy(
            () ->
                CardCheck.againstSentenceTransformers(
                    card(512, List.of(), Pooling.CLS, 512, ""), folder))
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.dimension"));

    sentenceTransformers("cls_token", true, 512, "{\"query\": \"query: \"}");
    assertThatThrownBy(
            () ->
                CardCheck.againstSentenceTransformers(
                    card(384, List.of(), Pooling.CLS, 512, "q: "), folder))
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.query_prompt"))
        .hasMessageContaining("\"query: \"");
  }

  @Test
  void aLocalFolderIsCheckedWhenItLoads() throws IOException {
    sentenceTransformers("mean_tokens", true, 512, "{}");
    Files.write(folder.resolve("model.onnx"), new byte[] {1});
    Files.write(folder.resolve("tokenizer.json"), "{}".getBytes(StandardCharsets.UTF_8));
    LocalModelDirectory.writeCard(folder, card(384, List.of(), Pooling.CLS, 512, ""));
    assertThatThrownBy(() -> LocalModelDirectory.load(folder))
        .isInstanceOf(PreconditionException.class)
        .satisfies(e -> assertThat(field(e)).isEqualTo("card.pooling"));
  }
}
