package dev.tenbin.encoder.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.tenbin.core.PreconditionException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A model card read from a sentence-transformers repository's own metadata, for hub repositories
 * without a Tenbin {@code card.json}: {@code modules.json} (Transformer, Pooling, optional
 * Normalize), the pooling module's {@code config.json} (cls, mean or last-token pooling and the
 * dimension), {@code sentence_bert_config.json} (max length), {@code
 * config_sentence_transformers.json} (query and document prompts) and an ONNX export at {@code
 * onnx/model.onnx} or {@code model.onnx}. Anything it cannot map exactly (a Dense projection, max
 * pooling, no ONNX export) is refused with the advice to write a card.
 */
final class SentenceTransformersCard {
  /** The repository's files, as the downloader reaches them. */
  interface Repository {
    /** A JSON file's content, empty when the repository has no such file. */
    Optional<JsonNode> json(String file) throws IOException;

    /** Downloads a file, false when the repository has no such file. */
    boolean fetch(String file) throws IOException;
  }

  static final List<String> ONNX_CANDIDATES = List.of("onnx/model.onnx", "model.onnx");

  private SentenceTransformersCard() {}

  static ModelCard derive(String repository, Repository files) throws IOException {
    JsonNode modules =
        files
            .json("modules.json")
            .orElseThrow(
                () -> refuse(repository, "no card.json and no sentence-transformers modules.json"));
    Pooling pooling = null;
    boolean normalize = false;
    int dimension = 0;
    for (JsonNode module : modules) {
      String type = module.path("type").asText();
      if (type.endsWith(".Transformer")) {
        continue;
      }
      if (type.endsWith(".Pooling")) {
        String path = module.path("path").asText();
        JsonNode config =
            files
                .json(path.isEmpty() ? "config.json" : path + "/config.json")
                .orElse(MissingNode.getInstance());
        pooling = pooling(repository, config);
        dimension = config.path("word_embedding_dimension").asInt(0);
      } else if (type.endsWith(".Normalize")) {
        normalize = true;
      } else {
        throw refuse(repository, "a " + type + " module, which Tenbin does not run");
      }
    }
    if (pooling == null) {
      throw refuse(repository, "no Pooling module in modules.json");
    }
    if (dimension == 0) {
      dimension =
          files.json("config.json").orElse(MissingNode.getInstance()).path("hidden_size").asInt(0);
    }
    int maxLength =
        files
            .json("sentence_bert_config.json")
            .orElse(MissingNode.getInstance())
            .path("max_seq_length")
            .asInt(512);
    JsonNode prompts =
        files
            .json("config_sentence_transformers.json")
            .orElse(MissingNode.getInstance())
            .path("prompts");
    String query = prompts.path("query").asText("");
    String document = prompts.path("document").asText(prompts.path("passage").asText(""));
    String onnx = null;
    for (String candidate : ONNX_CANDIDATES) {
      if (files.fetch(candidate)) {
        onnx = candidate;
        break;
      }
    }
    if (onnx == null) {
      throw refuse(repository, "no ONNX export (looked for " + ONNX_CANDIDATES + ")");
    }
    return new ModelCard(
        repository,
        "",
        "",
        onnx,
        "tokenizer.json",
        pooling,
        normalize,
        dimension,
        List.of(),
        maxLength,
        query,
        document,
        OutputKind.DENSE,
        0,
        0,
        "");
  }

  private static Pooling pooling(String repository, JsonNode config) {
    List<Pooling> modes = new ArrayList<>();
    List<String> unsupported = new ArrayList<>();
    config
        .fields()
        .forEachRemaining(
            field -> {
              if (!field.getKey().startsWith("pooling_mode_")
                  || !field.getValue().asBoolean(false)) {
                return;
              }
              switch (field.getKey()) {
                case "pooling_mode_cls_token" -> modes.add(Pooling.CLS);
                case "pooling_mode_mean_tokens" -> modes.add(Pooling.MEAN);
                case "pooling_mode_lasttoken" -> modes.add(Pooling.LAST_TOKEN);
                default -> unsupported.add(field.getKey());
              }
            });
    if (modes.size() != 1 || !unsupported.isEmpty()) {
      throw refuse(
          repository,
          "pooling " + config + ", which is not exactly one of cls, mean or last-token");
    }
    return modes.getFirst();
  }

  private static PreconditionException refuse(String repository, String why) {
    return new PreconditionException(
        "model_id",
        "hub repository "
            + repository
            + " has "
            + why
            + "; write a card.json for it in a models folder, with "
            + "\"source\": \"hub:"
            + repository
            + "@REVISION\"");
  }
}
