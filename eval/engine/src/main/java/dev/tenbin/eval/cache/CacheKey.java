package dev.tenbin.eval.cache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.encoder.v1.EncodingPolicy;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Everything besides the text that determines an encoder output: one key space of the {@link
 * EmbeddingCache}. Two encodes under equal keys of the same text give the same vector, so any
 * change here (a new revision, another prompt or max length, a truncation, other model files,
 * another execution provider, device or ONNX Runtime release, another encoding policy) starts a new
 * space: CPU and CUDA vectors are never mixed, nor vectors of shared and of single-text passes.
 *
 * @param modelId the model id the encoder serves
 * @param revision the card's revision
 * @param resolvedSha the resolved commit of a hub download ("" for other sources)
 * @param role "query" or "document"
 * @param prompt the prompt the card prepends for that role
 * @param maxLength the card's max length in tokens
 * @param outputKind {@link Kind#label()}: "dense", "sparse" or "multivector"
 * @param dtype the card's weight dtype
 * @param pooling the card's pooling
 * @param normalize whether the card normalizes outputs
 * @param topK sparse top-k pruning (0: none), else 0
 * @param dimension the output width the encoder serves (read from the model's graph at load), so
 *     vectors stored when a card cut a wider output are never read back as the full ones
 * @param executionProvider the encoder's ONNX Runtime execution provider ("CPU", "CUDA")
 * @param device the device class the encoder runs on ("cpu/amd64", "cuda/NVIDIA H100 ...")
 * @param onnxRuntime the encoder's ONNX Runtime release
 * @param modelSha256 SHA-256 of the model's graph, tokenizer and card
 * @param encodingPolicy how the encoder forms the model's forward passes ({@link #BATCHED} or
 *     "one-text-per-pass", from its batch-invariance probe at load): vectors a batch-dependent
 *     model gave in shared passes are never read back for one encoded a text per pass. {@link
 *     #BATCHED}, the policy every key space had before the encoder probed, is left out of {@link
 *     #toJson()}, so the key spaces of batch-invariant models keep their folders
 */
public record CacheKey(
    String modelId,
    String revision,
    String resolvedSha,
    String role,
    String prompt,
    int maxLength,
    String outputKind,
    String dtype,
    String pooling,
    boolean normalize,
    int topK,
    int dimension,
    String executionProvider,
    String device,
    String onnxRuntime,
    String modelSha256,
    @JsonInclude(value = JsonInclude.Include.CUSTOM, valueFilter = BatchedPolicy.class)
        String encodingPolicy) {

  /** The policy of a model that shares forward passes (and of an encoder that does not say). */
  public static final String BATCHED = "batched";

  /** The policy of a model encoded one text per forward pass. */
  public static final String ONE_TEXT_PER_PASS = "one-text-per-pass";

  /** Leaves {@link #BATCHED} out of the key's JSON (Jackson's filter: equal means left out). */
  static final class BatchedPolicy {
    @Override
    public boolean equals(Object value) {
      return BATCHED.equals(value);
    }

    @Override
    public int hashCode() {
      return BATCHED.hashCode();
    }
  }

  /** A key without provenance (an encoder that does not report it). */
  public CacheKey(
      String modelId,
      String revision,
      String resolvedSha,
      String role,
      String prompt,
      int maxLength,
      String outputKind,
      String dtype,
      String pooling,
      boolean normalize,
      int topK,
      int dimension) {
    this(
        modelId,
        revision,
        resolvedSha,
        role,
        prompt,
        maxLength,
        outputKind,
        dtype,
        pooling,
        normalize,
        topK,
        dimension,
        "",
        "",
        "",
        "",
        BATCHED);
  }

  /** The three kinds of encoder output the cache stores. */
  public enum Kind {
    DENSE("dense"),
    SPARSE("sparse"),
    MULTI_VECTOR("multivector");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .configure(SerializationFeature.INDENT_OUTPUT, true);

  /**
   * The key of encoding with the model {@code info} describes (its card and the provenance the
   * encoder reports) in {@code role}, as {@code kind}.
   */
  public static CacheKey of(GetModelInfoResponse info, boolean query, Kind kind, int topK) {
    ModelCard card = info.getCard();
    RuntimeProvenance provenance = info.getProvenance();
    return new CacheKey(
        card.getId(),
        card.getRevision(),
        card.getResolvedSha(),
        query ? "query" : "document",
        query ? card.getQueryPrompt() : card.getDocumentPrompt(),
        card.getMaxLength(),
        kind.label(),
        card.getDtype(),
        card.getPooling().name(),
        card.getNormalize(),
        kind == Kind.SPARSE ? topK : 0,
        card.getDimension(),
        provenance.getExecutionProvider(),
        provenance.getDevice(),
        provenance.getOnnxruntimeVersion(),
        provenance.getModelSha256(),
        encodingPolicy(info));
  }

  /**
   * The encoding policy {@code info} reports: "one-text-per-pass" for a model the encoder found
   * batch-dependent, {@link #BATCHED} otherwise (also from an encoder that does not probe, which
   * batches every model).
   */
  public static String encodingPolicy(GetModelInfoResponse info) {
    return info.getBatchInvariance().getPolicy() == EncodingPolicy.ENCODING_POLICY_ONE_TEXT_PER_PASS
        ? ONE_TEXT_PER_PASS
        : BATCHED;
  }

  /** The key as JSON (snake_case fields), written as {@code key.json} of its folder. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a cache key as JSON", e);
    }
  }

  /**
   * The folder name of the key space: the first 32 hex digits of SHA-256 over {@link #toJson()}.
   */
  public String id() {
    return HexFormat.of()
        .formatHex(TextHash.sha256(toJson().getBytes(StandardCharsets.UTF_8)), 0, 16);
  }
}
