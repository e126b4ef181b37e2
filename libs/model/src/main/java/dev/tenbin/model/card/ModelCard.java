package dev.tenbin.model.card;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.tenbin.core.InvalidInputException;
import java.util.List;

/**
 * Everything Tenbin needs to know to run an embedding model the way its authors intended. Cards are
 * JSON ({@code card.json}, snake_case keys) beside a local model, or built in.
 *
 * @param id the name requests use, e.g. "bge-small-en-v1.5"
 * @param revision the model's version (a hub commit, a jar version)
 * @param source where it came from: "classpath:…", "dir:…", "hub:…"
 * @param onnxFile file name of the ONNX graph
 * @param tokenizerFile file name of the Hugging Face tokenizer.json
 * @param pooling how token states become one vector (dense models)
 * @param normalize whether vectors are L2-normalised
 * @param dimension output dimension (vocabulary size for sparse models); 0 in a card means "take it
 *     from the model", and a loaded model's card always holds the width its graph really outputs
 *     ({@link CardCheck})
 * @param matryoshkaDimensions the truncations the model was trained for (Matryoshka loss), as its
 *     own model card or metadata declares them; empty when it was not. They decide the automatic
 *     truncation variants of an evaluation; a request may still truncate to any smaller width
 * @param maxLength tokens kept per input, special tokens included
 * @param queryPrompt prefix of queries
 * @param documentPrompt prefix of documents
 * @param outputKind dense, sparse or multi-vector
 * @param totalParameters parameters of the model
 * @param activeParameters parameters used per token (differs for mixtures of experts)
 * @param resolvedSha the commit SHA a hub download resolved to; empty otherwise
 * @param decoder how a decoder-backbone embedder wants its inputs (padding side, EOS, instruction
 *     templates); null — and any card without a {@code decoder} object — means {@link
 *     DecoderSettings#DEFAULT}, what BERT-style encoders need. See docs/decoder-models.md.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ModelCard(
    String id,
    String revision,
    String source,
    String onnxFile,
    String tokenizerFile,
    Pooling pooling,
    boolean normalize,
    int dimension,
    List<Integer> matryoshkaDimensions,
    int maxLength,
    String queryPrompt,
    String documentPrompt,
    OutputKind outputKind,
    long totalParameters,
    long activeParameters,
    String resolvedSha,
    DecoderSettings decoder) {

  /** A card of a BERT-style encoder (no decoder settings). */
  public ModelCard(
      String id,
      String revision,
      String source,
      String onnxFile,
      String tokenizerFile,
      Pooling pooling,
      boolean normalize,
      int dimension,
      List<Integer> matryoshkaDimensions,
      int maxLength,
      String queryPrompt,
      String documentPrompt,
      OutputKind outputKind,
      long totalParameters,
      long activeParameters,
      String resolvedSha) {
    this(
        id,
        revision,
        source,
        onnxFile,
        tokenizerFile,
        pooling,
        normalize,
        dimension,
        matryoshkaDimensions,
        maxLength,
        queryPrompt,
        documentPrompt,
        outputKind,
        totalParameters,
        activeParameters,
        resolvedSha,
        null);
  }

  public ModelCard {
    if (id == null || id.isBlank()) {
      throw new InvalidInputException("card.id", "a model card needs an id");
    }
    revision = revision == null ? "" : revision;
    source = source == null ? "" : source;
    onnxFile = onnxFile == null ? "model.onnx" : onnxFile;
    tokenizerFile = tokenizerFile == null ? "tokenizer.json" : tokenizerFile;
    pooling = pooling == null ? Pooling.CLS : pooling;
    matryoshkaDimensions =
        matryoshkaDimensions == null ? List.of() : List.copyOf(matryoshkaDimensions);
    maxLength = maxLength <= 0 ? 512 : maxLength;
    queryPrompt = queryPrompt == null ? "" : queryPrompt;
    documentPrompt = documentPrompt == null ? "" : documentPrompt;
    outputKind = outputKind == null ? OutputKind.DENSE : outputKind;
    resolvedSha = resolvedSha == null ? "" : resolvedSha;
    // The defaults are stored as null, so a BERT card's JSON (and anything hashed from it) is
    // unchanged.
    decoder = DecoderSettings.DEFAULT.equals(decoder) ? null : decoder;
    if (decoder != null && !decoder.queryTemplate().isEmpty() && !queryPrompt.isEmpty()) {
      throw new InvalidInputException(
          "card.decoder.query_template",
          "card " + id + " has both a query_prompt and a decoder.query_template; keep one");
    }
    if (decoder != null && !decoder.documentTemplate().isEmpty() && !documentPrompt.isEmpty()) {
      throw new InvalidInputException(
          "card.decoder.document_template",
          "card " + id + " has both a document_prompt and a decoder.document_template; keep one");
    }
  }

  /** The card's decoder settings, {@link DecoderSettings#DEFAULT} when it has none. */
  public DecoderSettings decoderSettings() {
    return decoder == null ? DecoderSettings.DEFAULT : decoder;
  }

  /** The card with a different source, revision and resolved SHA (as a loader records them). */
  public ModelCard withOrigin(String newSource, String newRevision, String sha) {
    return new ModelCard(
        id,
        newRevision,
        newSource,
        onnxFile,
        tokenizerFile,
        pooling,
        normalize,
        dimension,
        matryoshkaDimensions,
        maxLength,
        queryPrompt,
        documentPrompt,
        outputKind,
        totalParameters,
        activeParameters,
        sha,
        decoder);
  }

  /** The card with its output dimension set (a loader fills in a dimension the card left 0). */
  public ModelCard withDimension(int newDimension) {
    return new ModelCard(
        id,
        revision,
        source,
        onnxFile,
        tokenizerFile,
        pooling,
        normalize,
        newDimension,
        matryoshkaDimensions,
        maxLength,
        queryPrompt,
        documentPrompt,
        outputKind,
        totalParameters,
        activeParameters,
        resolvedSha);
  }

  /**
   * Checks a requested truncation; 0 means the full dimension. Any width from 1 to the dimension
   * may be asked for: the leading dimensions, renormalised when the card normalises. That is a
   * Matryoshka truncation only for the {@link #matryoshkaDimensions} the model was trained for; for
   * any other width it is plain truncation, and the caller names it so.
   */
  public int resolveDimensions(int requested, String field) {
    if (requested == 0 || requested == dimension) {
      return dimension;
    }
    if (requested < 0 || requested > dimension) {
      throw new InvalidInputException(
          field,
          "model "
              + id
              + " outputs "
              + dimension
              + " dimensions; a truncation must be between 1 and "
              + dimension
              + " (0: all), got "
              + requested
              + (matryoshkaDimensions.isEmpty()
                  ? ""
                  : "; it was trained for " + matryoshkaDimensions));
    }
    return requested;
  }

  /** The prefix prompt of queries or documents (empty when the card uses a template). */
  public String prompt(boolean query) {
    return query ? queryPrompt : documentPrompt;
  }

  /**
   * The text as the model should see it: placed in the decoder's instruction template when the card
   * has one for this side, else behind the prefix prompt.
   */
  public String promptedText(String text, boolean query) {
    String template = decoderSettings().template(query);
    if (!template.isEmpty()) {
      return decoderSettings().apply(template, text);
    }
    String prompt = prompt(query);
    return prompt.isEmpty() ? text : prompt + text;
  }
}
