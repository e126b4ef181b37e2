package dev.tenbin.model.card;

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
 * pooling, no ONNX export) is refused with the advice to write a card. The same metadata ({@link
 * #read}) is what {@link CardCheck} checks a written card against.
 */
public final class SentenceTransformersCard {
  public static final List<String> ONNX_CANDIDATES = List.of("onnx/model.onnx", "model.onnx");

  private SentenceTransformersCard() {}

  /**
   * What a repository's sentence-transformers files say, each part empty/0 when its file is absent.
   *
   * @param pooling the pooling module's mode; null without a Pooling module
   * @param normalize whether modules.json ends in a Normalize module
   * @param dimension the pooling module's {@code word_embedding_dimension} (0: unknown)
   * @param maxLength {@code max_seq_length} of {@code sentence_bert_config.json} (0: absent)
   * @param tokenizerMaxLength {@code model_max_length} of {@code tokenizer_config.json} (0: absent
   *     or the "no limit" sentinel)
   * @param queryPrompt the "query" prompt of {@code config_sentence_transformers.json} (null: none
   *     declared)
   * @param documentPrompt its "document" (or "passage") prompt (null: none declared)
   * @param unsupported what Tenbin cannot run (a Dense projection, max pooling…), or null
   */
  public record Metadata(
      Pooling pooling,
      boolean normalize,
      int dimension,
      int maxLength,
      int tokenizerMaxLength,
      String queryPrompt,
      String documentPrompt,
      String unsupported) {}

  /** The metadata of a repository with a modules.json; empty without one. */
  public static Optional<Metadata> read(RepositoryFiles files) throws IOException {
    Optional<JsonNode> modules = files.json("modules.json");
    if (modules.isEmpty()) {
      return Optional.empty();
    }
    Pooling pooling = null;
    boolean normalize = false;
    int dimension = 0;
    String unsupported = null;
    for (JsonNode module : modules.get()) {
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
        pooling = pooling(config);
        dimension = config.path("word_embedding_dimension").asInt(0);
        if (pooling == null && unsupported == null) {
          unsupported =
              "pooling " + config + ", which is not exactly one of cls, mean or last-token";
        }
      } else if (type.endsWith(".Normalize")) {
        normalize = true;
      } else if (unsupported == null) {
        unsupported = "a " + type + " module, which Tenbin does not run";
      }
    }
    int maxLength =
        files
            .json("sentence_bert_config.json")
            .orElse(MissingNode.getInstance())
            .path("max_seq_length")
            .asInt(0);
    int tokenizerMaxLength = files.tokenizerMaxLength().orElse(0);
    JsonNode prompts =
        files
            .json("config_sentence_transformers.json")
            .orElse(MissingNode.getInstance())
            .path("prompts");
    String query = prompts.has("query") ? prompts.path("query").asText("") : null;
    String document =
        prompts.has("document")
            ? prompts.path("document").asText("")
            : prompts.has("passage") ? prompts.path("passage").asText("") : null;
    return Optional.of(
        new Metadata(
            pooling,
            normalize,
            dimension,
            maxLength,
            tokenizerMaxLength,
            query,
            document,
            unsupported));
  }

  public static ModelCard derive(String repository, RepositoryFiles files) throws IOException {
    Metadata metadata =
        read(files)
            .orElseThrow(
                () -> refuse(repository, "no card.json and no sentence-transformers modules.json"));
    if (metadata.unsupported() != null) {
      throw refuse(repository, metadata.unsupported());
    }
    if (metadata.pooling() == null) {
      throw refuse(repository, "no Pooling module in modules.json");
    }
    int dimension = metadata.dimension();
    if (dimension == 0) {
      dimension =
          files.json("config.json").orElse(MissingNode.getInstance()).path("hidden_size").asInt(0);
    }
    int maxLength =
        metadata.maxLength() > 0
            ? metadata.maxLength()
            : metadata.tokenizerMaxLength() > 0 ? metadata.tokenizerMaxLength() : 512;
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
        metadata.pooling(),
        metadata.normalize(),
        dimension,
        List.of(),
        maxLength,
        metadata.queryPrompt() == null ? "" : metadata.queryPrompt(),
        metadata.documentPrompt() == null ? "" : metadata.documentPrompt(),
        OutputKind.DENSE,
        0,
        0,
        "");
  }

  /** The one supported pooling mode a pooling config turns on, null otherwise. */
  private static Pooling pooling(JsonNode config) {
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
    return modes.size() == 1 && unsupported.isEmpty() ? modes.getFirst() : null;
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
