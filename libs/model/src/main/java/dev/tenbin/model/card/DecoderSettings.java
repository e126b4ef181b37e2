package dev.tenbin.model.card;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.tenbin.core.InvalidInputException;

/**
 * How a decoder-backbone embedder (DRAMA, Qwen3-Embedding, …) wants its inputs: the {@code decoder}
 * object of a card.json. A card without it gets {@link #DEFAULT}, which leaves BERT-style encoders
 * exactly as before (right padding, no EOS, the card's plain prompts). Whether {@code position_ids}
 * and {@code token_type_ids} are fed is not configured: it follows the inputs the ONNX graph
 * declares.
 *
 * @param paddingSide {@code "left"} or {@code "right"} (default); last-token models use left
 * @param eosToken a token appended to every input unless the tokenizer's post-processor already
 *     ended it with that token (Qwen3-Embedding: {@code "<|endoftext|>"}); empty: none. When the
 *     input is already at the card's max length, the EOS replaces its last token.
 * @param queryTemplate a template for queries with {@code {text}} and optionally {@code {task}},
 *     e.g. {@code "Instruct: {task}\nQuery:{text}"}; empty: the card's {@code query_prompt} prefix
 * @param documentTemplate the same for documents; empty: the card's {@code document_prompt} prefix
 * @param task what {@code {task}} stands for, e.g. "Given a web search query, retrieve relevant
 *     passages that answer the query"
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DecoderSettings(
    PaddingSide paddingSide,
    String eosToken,
    String queryTemplate,
    String documentTemplate,
    String task) {
  /** Right padding, no EOS, no templates: what every BERT-style card means. */
  public static final DecoderSettings DEFAULT = new DecoderSettings(null, null, null, null, null);

  public DecoderSettings {
    paddingSide = paddingSide == null ? PaddingSide.RIGHT : paddingSide;
    eosToken = eosToken == null ? "" : eosToken;
    queryTemplate = queryTemplate == null ? "" : queryTemplate;
    documentTemplate = documentTemplate == null ? "" : documentTemplate;
    task = task == null ? "" : task;
    checkTemplate(queryTemplate, "card.decoder.query_template", task);
    checkTemplate(documentTemplate, "card.decoder.document_template", task);
  }

  private static void checkTemplate(String template, String field, String task) {
    if (template.isEmpty()) {
      return;
    }
    if (!template.contains("{text}")) {
      throw new InvalidInputException(field, field + " must contain {text}: " + template);
    }
    if (template.contains("{task}") && task.isEmpty()) {
      throw new InvalidInputException(
          "card.decoder.task", field + " uses {task} but card.decoder.task is empty");
    }
  }

  /** The template for queries or documents; empty when the card's prefix prompt applies. */
  public String template(boolean query) {
    return query ? queryTemplate : documentTemplate;
  }

  /** {@code text} placed in {@code template} (with the task filled in). */
  public String apply(String template, String text) {
    // {task} first, so that a text containing "{task}" is never expanded.
    int at = template.indexOf("{text}");
    String before = template.substring(0, at).replace("{task}", task);
    String after = template.substring(at + "{text}".length()).replace("{task}", task);
    return before + text + after;
  }
}
