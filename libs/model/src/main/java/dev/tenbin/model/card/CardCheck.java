package dev.tenbin.model.card;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.core.PreconditionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Checks a card against the model it describes, at load: a card that disagrees with the model is a
 * {@link PreconditionException} naming the card field, both values and the fix, never a silent
 * truncation or a prompt the model was not trained with.
 *
 * <ul>
 *   <li>{@link #againstGraph}: the output width the ONNX graph really gives (a card may leave
 *       {@code dimension} 0 to take it from the graph), the Matryoshka dimensions within it, and
 *       the maximum length within the position-embedding table. (The truncation a {@code
 *       tokenizer.json} carries is the exporter's setting, which the card's maximum length
 *       replaces: the all-MiniLM-L6-v2 export truncates at 128, its training length, and its card
 *       keeps 512.)
 *   <li>{@link #againstSentenceTransformers}: pooling, normalisation, dimension, maximum length and
 *       prompts against the model's sentence-transformers files ({@code modules.json}, the pooling
 *       module's {@code config.json}, {@code sentence_bert_config.json}, {@code
 *       config_sentence_transformers.json}, {@code tokenizer_config.json}) where they are present.
 * </ul>
 */
public final class CardCheck {
  private CardCheck() {}

  /**
   * What the loaded model itself says.
   *
   * @param outputWidth the last dimension of the graph's output (from its declared shape, or from a
   *     probe run when that is symbolic)
   * @param positionEmbeddings rows of the position-embedding table, 0 when not readable
   */
  public record Observed(int outputWidth, int positionEmbeddings) {}

  /**
   * The card checked against the graph, its dimension filled in from the graph when it was 0.
   *
   * @throws PreconditionException naming the card field that disagrees
   */
  public static ModelCard againstGraph(ModelCard card, Observed model) {
    int width = model.outputWidth();
    if (card.dimension() != 0 && card.dimension() != width) {
      throw disagree(
          card,
          "dimension",
          Integer.toString(card.dimension()),
          "the ONNX graph outputs " + width + " values per token",
          "set \"dimension\": " + width + " (or 0 to take it from the model)");
    }
    ModelCard checked = card.dimension() == 0 ? card.withDimension(width) : card;
    for (int dimension : checked.matryoshkaDimensions()) {
      if (dimension <= 0 || dimension >= width) {
        throw disagree(
            card,
            "matryoshka_dimensions",
            checked.matryoshkaDimensions().toString(),
            "the model outputs " + width + " dimensions",
            "list only dimensions between 1 and " + (width - 1) + " the model was trained for");
      }
    }
    if (model.positionEmbeddings() > 0 && card.maxLength() > model.positionEmbeddings()) {
      throw disagree(
          card,
          "max_length",
          Integer.toString(card.maxLength()),
          "the ONNX graph has " + model.positionEmbeddings() + " position embeddings",
          "set \"max_length\" to at most " + model.positionEmbeddings());
    }
    return checked;
  }

  /**
   * Checks a local card against the sentence-transformers files in its folder, where present.
   *
   * @throws PreconditionException naming the card field that disagrees
   */
  public static void againstSentenceTransformers(ModelCard card, Path folder) {
    Optional<SentenceTransformersCard.Metadata> read;
    try {
      read = SentenceTransformersCard.read(new FolderFiles(folder));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the model files in " + folder, e);
    }
    read.ifPresent(metadata -> againstSentenceTransformers(card, metadata));
  }

  static void againstSentenceTransformers(
      ModelCard card, SentenceTransformersCard.Metadata metadata) {
    if (card.outputKind() != OutputKind.DENSE) {
      return;
    }
    if (metadata.pooling() != null && metadata.pooling() != card.pooling()) {
      throw disagree(
          card,
          "pooling",
          card.pooling().name(),
          "the model's pooling config says " + metadata.pooling().name(),
          "set \"pooling\": \"" + metadata.pooling().name() + "\"");
    }
    if (metadata.pooling() != null && metadata.normalize() != card.normalize()) {
      throw disagree(
          card,
          "normalize",
          Boolean.toString(card.normalize()),
          "modules.json "
              + (metadata.normalize() ? "ends in a Normalize module" : "has no Normalize module"),
          "set \"normalize\": " + metadata.normalize());
    }
    if (metadata.unsupported() == null
        && metadata.dimension() > 0
        && card.dimension() != 0
        && metadata.dimension() != card.dimension()) {
      throw disagree(
          card,
          "dimension",
          Integer.toString(card.dimension()),
          "the pooling config's word_embedding_dimension is " + metadata.dimension(),
          "set \"dimension\": " + metadata.dimension() + " (or 0 to take it from the model)");
    }
    if (metadata.maxLength() > 0 && metadata.maxLength() != card.maxLength()) {
      throw disagree(
          card,
          "max_length",
          Integer.toString(card.maxLength()),
          "sentence_bert_config.json says max_seq_length " + metadata.maxLength(),
          "set \"max_length\": " + metadata.maxLength());
    }
    if (metadata.tokenizerMaxLength() > 0 && card.maxLength() > metadata.tokenizerMaxLength()) {
      throw disagree(
          card,
          "max_length",
          Integer.toString(card.maxLength()),
          "tokenizer_config.json says model_max_length " + metadata.tokenizerMaxLength(),
          "set \"max_length\" to at most " + metadata.tokenizerMaxLength());
    }
    if (metadata.queryPrompt() != null && !metadata.queryPrompt().equals(card.queryPrompt())) {
      throw disagree(
          card,
          "query_prompt",
          quoted(card.queryPrompt()),
          "config_sentence_transformers.json's query prompt is " + quoted(metadata.queryPrompt()),
          "set \"query_prompt\": " + quoted(metadata.queryPrompt()));
    }
    if (metadata.documentPrompt() != null
        && !metadata.documentPrompt().equals(card.documentPrompt())) {
      throw disagree(
          card,
          "document_prompt",
          quoted(card.documentPrompt()),
          "config_sentence_transformers.json's document prompt is "
              + quoted(metadata.documentPrompt()),
          "set \"document_prompt\": " + quoted(metadata.documentPrompt()));
    }
  }

  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static PreconditionException disagree(
      ModelCard card, String field, String cardValue, String model, String fix) {
    return new PreconditionException(
        "card." + field,
        "the card of model "
            + card.id()
            + " says "
            + field
            + " "
            + cardValue
            + ", but "
            + model
            + ": "
            + fix
            + " in its card"
            + (card.source().isEmpty() ? "" : " (" + card.source() + ")"));
  }

  /** A model folder's files as a {@link RepositoryFiles}. */
  private record FolderFiles(Path folder) implements RepositoryFiles {
    @Override
    public Optional<JsonNode> json(String file) throws IOException {
      Path path = folder.resolve(file).normalize();
      if (!path.startsWith(folder.normalize()) || !Files.isRegularFile(path)) {
        return Optional.empty();
      }
      return Optional.of(LocalModelDirectory.JSON.readTree(path.toFile()));
    }

    @Override
    public boolean fetch(String file) {
      return Files.isRegularFile(folder.resolve(file));
    }
  }
}
