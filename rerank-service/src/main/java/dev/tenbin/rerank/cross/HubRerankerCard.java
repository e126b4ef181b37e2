package dev.tenbin.rerank.cross;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.model.card.RepositoryFiles;
import dev.tenbin.model.hub.HubDownloader;
import java.io.IOException;
import java.util.Iterator;

/**
 * The card of a cross-encoder downloaded from a hub repository ({@code hub:OWNER/NAME@REVISION}),
 * in this order (a local card naming the repository as its {@code source} keeps its own head,
 * length and prompt for its id, RerankerRegistry; its file names apply here, and it stands in for a
 * repository that neither of these describes):
 *
 * <ol>
 *   <li>the repository's own Tenbin {@code card.json} when it names a {@code head};
 *   <li>the repository's Hugging Face {@code config.json}: a {@code *ForSequenceClassification}
 *       model with one label is a {@link ScoreHead#SIGMOID} head (sentence-transformers'
 *       CrossEncoder applies a sigmoid to one logit), with two a {@link ScoreHead#SOFTMAX2} head
 *       (the probability of label 1, the positive class of two-label rerankers). The number of
 *       labels is {@code num_labels}, else the size of {@code id2label}, else 2 (transformers'
 *       default). The maximum length is {@code tokenizer_config.json}'s {@code model_max_length},
 *       else {@code max_position_embeddings}, else 512.
 * </ol>
 *
 * The graph is the card's {@code onnx_file}, else the first of {@link HubDownloader#ONNX_FILES} the
 * repository has ({@code onnx/model.onnx}, as Hugging Face's ONNX exports publish it, then {@code
 * model.onnx}). Anything else — more labels, another architecture, no ONNX export — is refused with
 * the advice to write a card.
 */
final class HubRerankerCard implements HubDownloader.CardMaker {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final JsonNode given;

  /** A card maker over a local card (null: none). */
  HubRerankerCard(JsonNode given) {
    this.given = given;
  }

  @Override
  public ObjectNode card(String repository, RepositoryFiles files) throws IOException {
    ObjectNode card;
    try {
      JsonNode own = files.json("card.json").orElse(MissingNode.getInstance());
      card = own.has("head") ? (ObjectNode) own.deepCopy() : fromConfig(repository, files);
    } catch (PreconditionException unmapped) {
      if (given == null) {
        throw unmapped;
      }
      card = given.deepCopy();
    }
    if (given != null) {
      // The cache keeps the repository's own card, so that its hub id means the same whoever
      // downloaded it first; the local card's head and length apply to its own id only.
      for (String file : new String[] {"onnx_file", "tokenizer_file"}) {
        if (given.hasNonNull(file)) {
          card.put(file, given.path(file).asText());
        }
      }
    }
    if (!card.hasNonNull("id") || card.path("id").asText().isBlank()) {
      card.put("id", repository);
    }
    if (!card.hasNonNull("onnx_file")) {
      for (String candidate : HubDownloader.ONNX_FILES) {
        if (files.fetch(candidate)) {
          card.put("onnx_file", candidate);
          break;
        }
      }
      if (!card.hasNonNull("onnx_file")) {
        throw refuse(repository, "no ONNX export (looked for " + HubDownloader.ONNX_FILES + ")");
      }
    }
    return card;
  }

  private static ObjectNode fromConfig(String repository, RepositoryFiles files)
      throws IOException {
    JsonNode config =
        files
            .json("config.json")
            .orElseThrow(() -> refuse(repository, "no card.json with a head and no config.json"));
    boolean classifier = false;
    for (JsonNode architecture : config.path("architectures")) {
      classifier |= architecture.asText().endsWith("ForSequenceClassification");
    }
    if (!classifier) {
      throw refuse(
          repository,
          "a config.json whose architectures "
              + config.path("architectures")
              + " are not a *ForSequenceClassification cross-encoder (an LLM reranker needs a"
              + " card with \"head\": \"YES_NO\" and its prompt template)");
    }
    int labels = labels(config);
    ScoreHead head =
        switch (labels) {
          case 1 -> ScoreHead.SIGMOID;
          case 2 -> ScoreHead.SOFTMAX2;
          default ->
              throw refuse(
                  repository,
                  labels + " labels in config.json; Tenbin scores one (sigmoid) or two (softmax)");
        };
    int maxLength =
        files.tokenizerMaxLength().orElse(config.path("max_position_embeddings").asInt(512));
    ObjectNode card = JSON.createObjectNode();
    card.put("id", repository);
    card.put("head", head.name());
    card.put("max_length", maxLength);
    return card;
  }

  /** num_labels, else the size of id2label, else 2 (what transformers' PretrainedConfig does). */
  private static int labels(JsonNode config) {
    if (config.path("num_labels").canConvertToInt()) {
      return config.path("num_labels").asInt();
    }
    JsonNode id2label = config.path("id2label");
    if (id2label.isObject()) {
      int count = 0;
      for (Iterator<String> names = id2label.fieldNames(); names.hasNext(); names.next()) {
        count++;
      }
      return count;
    }
    return 2;
  }

  private static PreconditionException refuse(String repository, String why) {
    return new PreconditionException(
        "model_id",
        "hub repository "
            + repository
            + " has "
            + why
            + "; write a reranker card.json for it in a models folder, with \"source\": \"hub:"
            + repository
            + "@REVISION\" and a \"head\"");
  }
}
