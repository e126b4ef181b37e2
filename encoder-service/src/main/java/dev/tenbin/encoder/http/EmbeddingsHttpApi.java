package dev.tenbin.encoder.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.encoder.EncodeResult;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.rpc.HttpEndpoint;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * {@code POST /v1/embeddings}, OpenAI- and TEI-compatible, over the encoder core (the same batcher,
 * limits and model policy as the gRPC {@code EncodeDense}). Request:
 *
 * <ul>
 *   <li>{@code model} (required): a model id, as gRPC's {@code model_id};
 *   <li>{@code input} (required): a string or a list of strings (token-id arrays are refused);
 *   <li>{@code dimensions}: Matryoshka truncation, the gRPC field's rules (absent or 0: the model's
 *       width; otherwise one the card declares);
 *   <li>{@code encoding_format}: {@code float} (default) or {@code base64} (the float32 values,
 *       little-endian, base64 — how OpenAI's clients decode it);
 *   <li>{@code input_type}: {@code document} (default: the card's document prompt, if any) or
 *       {@code query} (the card's query prompt), gRPC's {@code role}, as Voyage's API takes it
 *       (Cohere's {@code search_document} and {@code search_query} too); or TEI's {@code
 *       prompt_name} with the same two values. OpenAI clients send neither, so their inputs are
 *       encoded as documents (the OpenAI Python client passes it with {@code extra_body}).
 * </ul>
 *
 * <p>Other fields ({@code user}, ...) are ignored. The response is {@code
 * {"object":"list","data":[{"object":"embedding","index":i,"embedding":...}],"model":...,
 * "usage":{"prompt_tokens":n,"total_tokens":n}}} with n the tokens the model saw (prompt and
 * special tokens included, padding excluded). Field errors name the HTTP request's fields ({@code
 * input[2]}, {@code model}).
 */
public final class EmbeddingsHttpApi {
  /** The path OpenAI's and TEI's clients post to. */
  public static final String PATH = "/v1/embeddings";

  /** The models {@link #PATH} can use, as OpenAI's {@code GET /v1/models} lists them. */
  public static final String MODELS_PATH = "/v1/models";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final EncoderCore core;

  public EmbeddingsHttpApi(EncoderCore core) {
    this.core = core;
  }

  /** The routes of the encoder's HTTP endpoint. */
  public static List<HttpEndpoint.Route> routes(EncoderCore core) {
    EmbeddingsHttpApi api = new EmbeddingsHttpApi(core);
    return List.of(
        new HttpEndpoint.Route("POST", PATH, api::embeddings, EmbeddingsHttpApi::param),
        new HttpEndpoint.Route("GET", MODELS_PATH, body -> api.models(), EmbeddingsHttpApi::param));
  }

  /**
   * {@code GET /v1/models}: the dense models this service may load (what {@code model} may name),
   * in OpenAI's list shape, each with its width, Matryoshka widths and whether it has a query
   * prompt.
   */
  public Object models() {
    ObjectNode response = JSON.createObjectNode().put("object", "list");
    ArrayNode data = response.putArray("data");
    for (ModelCard card : core.availableModels()) {
      if (card.outputKind() != OutputKind.DENSE) {
        continue;
      }
      ObjectNode model =
          data.addObject()
              .put("id", card.id())
              .put("object", "model")
              .put("created", 0)
              .put("owned_by", "tenbin");
      if (card.dimension() > 0) {
        model.put("dimensions", card.dimension());
      }
      ArrayNode widths = model.putArray("matryoshka_dimensions");
      card.matryoshkaDimensions().forEach(widths::add);
      model.put("query_prompt", card.queryPrompt() != null && !card.queryPrompt().isEmpty());
    }
    return response;
  }

  /** The HTTP request's name of a field the core names by the gRPC request's. */
  static String param(String coreField) {
    if (coreField.equals("model_id")) {
      return "model";
    }
    if (coreField.equals("texts") || coreField.startsWith("texts[")) {
      return "input" + coreField.substring("texts".length());
    }
    return coreField;
  }

  /** A parsed request. */
  record EmbeddingsRequest(
      String model, List<String> input, int dimensions, boolean base64, boolean query) {}

  /** Parses, encodes and answers one request. */
  public Object embeddings(byte[] body) {
    EmbeddingsRequest request = parse(body);
    EncodeResult<float[]> result =
        core.encodeDense(
            request.model(),
            request.input(),
            request.query(),
            request.dimensions(),
            Cancellation.NEVER);
    ObjectNode response = JSON.createObjectNode().put("object", "list");
    ArrayNode data = response.putArray("data");
    List<float[]> vectors = result.vectors();
    for (int i = 0; i < vectors.size(); i++) {
      ObjectNode item = data.addObject().put("object", "embedding").put("index", i);
      if (request.base64()) {
        item.put("embedding", base64(vectors.get(i)));
      } else {
        ArrayNode values = item.putArray("embedding");
        for (float value : vectors.get(i)) {
          values.add(value);
        }
      }
    }
    response.put("model", request.model());
    response
        .putObject("usage")
        .put("prompt_tokens", result.inputTokens())
        .put("total_tokens", result.inputTokens());
    return response;
  }

  /** Little-endian float32 bytes, base64: what {@code numpy.frombuffer(..., "float32")} reads. */
  static String base64(float[] vector) {
    ByteBuffer bytes = ByteBuffer.allocate(4 * vector.length).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(vector);
    return Base64.getEncoder().encodeToString(bytes.array());
  }

  static EmbeddingsRequest parse(byte[] body) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (StreamConstraintsException e) {
      throw InvalidInputException.tooLarge(
          null, "the body exceeds what a request may hold: " + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(
          null, "the body is not JSON: " + e.getOriginalMessage().lines().findFirst().orElse(""));
    } catch (IOException e) {
      throw new InvalidInputException(null, "the body cannot be read as JSON");
    }
    if (root == null || !root.isObject()) {
      throw new InvalidInputException(null, "the body must be a JSON object");
    }
    JsonNode model = root.get("model");
    if (model == null || !model.isTextual() || model.asText().isBlank()) {
      throw new InvalidInputException("model", "model is required: a model id, as a string");
    }
    return new EmbeddingsRequest(
        model.asText(),
        input(root.get("input")),
        dimensions(root.get("dimensions")),
        base64(root.get("encoding_format")),
        query(root));
  }

  private static List<String> input(JsonNode input) {
    if (input == null || input.isNull()) {
      throw new InvalidInputException("input", "input is required: a string or a list of strings");
    }
    if (input.isTextual()) {
      return List.of(input.asText());
    }
    if (!input.isArray()) {
      throw new InvalidInputException("input", "input must be a string or a list of strings");
    }
    List<String> texts = new ArrayList<>(input.size());
    for (int i = 0; i < input.size(); i++) {
      JsonNode text = input.get(i);
      if (!text.isTextual()) {
        throw new InvalidInputException(
            "input[" + i + "]",
            "input[" + i + "] must be a string (token-id arrays are not accepted)");
      }
      texts.add(text.asText());
    }
    return texts;
  }

  private static int dimensions(JsonNode dimensions) {
    if (dimensions == null || dimensions.isNull()) {
      return 0;
    }
    if (!dimensions.isIntegralNumber() || !dimensions.canConvertToInt()) {
      throw new InvalidInputException("dimensions", "dimensions must be an integer");
    }
    return dimensions.intValue();
  }

  private static boolean base64(JsonNode format) {
    if (format == null || format.isNull()) {
      return false;
    }
    return switch (format.isTextual() ? format.asText().toLowerCase(Locale.ROOT) : "") {
      case "float" -> false;
      case "base64" -> true;
      default ->
          throw new InvalidInputException(
              "encoding_format", "encoding_format must be \"float\" or \"base64\"");
    };
  }

  /**
   * Whether the inputs are queries: {@code input_type} as Voyage ({@code query}, {@code document})
   * and Cohere ({@code search_query}, {@code search_document}) take it, or TEI's {@code
   * prompt_name} ({@code query}, {@code document}); one of them at most.
   */
  private static boolean query(JsonNode root) {
    JsonNode inputType = root.get("input_type");
    JsonNode promptName = root.get("prompt_name");
    boolean hasType = inputType != null && !inputType.isNull();
    boolean hasPrompt = promptName != null && !promptName.isNull();
    if (hasType && hasPrompt) {
      throw new InvalidInputException(
          "prompt_name", "give input_type or prompt_name, not both (they say the same)");
    }
    if (hasPrompt) {
      return switch (promptName.isTextual() ? promptName.asText().toLowerCase(Locale.ROOT) : "") {
        case "query" -> true;
        case "document" -> false;
        default ->
            throw new InvalidInputException(
                "prompt_name",
                "prompt_name must be \"query\" or \"document\" (the card's two prompts)");
      };
    }
    if (!hasType) {
      return false;
    }
    return switch (inputType.isTextual() ? inputType.asText().toLowerCase(Locale.ROOT) : "") {
      case "query", "search_query" -> true;
      case "document", "search_document" -> false;
      default ->
          throw new InvalidInputException(
              "input_type",
              "input_type must be \"query\" or \"document\" (or \"search_query\","
                  + " \"search_document\"; default document)");
    };
  }
}
