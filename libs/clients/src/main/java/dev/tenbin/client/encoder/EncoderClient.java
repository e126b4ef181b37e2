package dev.tenbin.client.encoder;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.Pages;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.SparseVector;
import dev.tenbin.proto.encoder.v1.BuildLightCacheRequest;
import dev.tenbin.proto.encoder.v1.BuildLightCacheResponse;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.EncodeLightQueryRequest;
import dev.tenbin.proto.encoder.v1.EncodeMultiVectorRequest;
import dev.tenbin.proto.encoder.v1.EncodeSparseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.GetModelInfoRequest;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.LightCache;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import dev.tenbin.proto.encoder.v1.LightQueryKind;
import dev.tenbin.proto.encoder.v1.ListModelsRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.StreamEncodeMultiVectorRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeMultiVectorResponse;
import dev.tenbin.proto.encoder.v1.StreamEncodeSparseRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeSparseResponse;
import dev.tenbin.proto.encoder.v1.TokenizeRequest;
import dev.tenbin.proto.encoder.v1.TokenizeResponse;
import dev.tenbin.proto.encoder.v1.TokenizedText;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * The Java client other services use to reach the encoder: every call has a deadline, calls that
 * fail with UNAVAILABLE are retried with backoff, and bulk encoding streams in chunks.
 *
 * <p>It calls through any channel; to spread calls over the encoder's replicas give it one from
 * {@code ClientChannels.open(ServiceTarget.parse(flag, "dns:///tenbin-encoder-headless:50051"),
 * ...)} (round_robin over every ready pod, the name resolved again when replicas change; see
 * docs/scaling.md). A retried call is then picked afresh, so it goes to a replica still serving.
 */
public final class EncoderClient {
  /**
   * Token ids of several texts as the model sees them.
   *
   * @param ids per text, its token ids (special tokens included, truncated to the max length)
   * @param truncated per text, whether tokens were cut
   */
  public record Tokens(long[][] ids, boolean[] truncated) {}

  /** The deadline of {@link #of}: a whole corpus may stream through one call. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(30);

  private final Channel channel;
  private final CallPolicy policy;

  public EncoderClient(Channel channel, CallPolicy policy) {
    this.channel = channel;
    this.policy = policy;
  }

  /** A client with the default deadline and four attempts. */
  public static EncoderClient of(Channel channel) {
    return new EncoderClient(channel, new CallPolicy(DEFAULT_DEADLINE, 4));
  }

  /** The same client with another per-call deadline. */
  public EncoderClient withDeadline(Duration newDeadline) {
    return new EncoderClient(channel, policy.withDeadline(newDeadline));
  }

  private EncoderServiceGrpc.EncoderServiceBlockingStub stub() {
    return policy.deadlined(EncoderServiceGrpc.newBlockingStub(channel));
  }

  /** Dense vectors of texts in one call. */
  public List<float[]> encodeDense(
      String modelId, List<String> texts, boolean query, int dimensions) {
    EncodeDenseResponse response =
        retrying(
            () ->
                stub()
                    .encodeDense(
                        EncodeDenseRequest.newBuilder()
                            .setModelId(modelId)
                            .addAllTexts(texts)
                            .setRole(
                                query ? InputRole.INPUT_ROLE_QUERY : InputRole.INPUT_ROLE_DOCUMENT)
                            .setDimensions(dimensions)
                            .build()));
    return toArrays(response.getVectorsList());
  }

  /** Full-width dense vectors through {@link #encodeDense}, one call per request. */
  public DenseEncoding denseEncoding() {
    return (modelId, texts, query) -> encodeDense(modelId, texts, query, 0);
  }

  /**
   * Dense vectors of many texts through the server-streaming RPC, in order. A stream handed back
   * (UNAVAILABLE: a replica stopping or restarting) is resumed from the first text without a
   * vector, so no text is encoded twice; chunks keep their boundaries, so the vectors are those one
   * uninterrupted stream gives.
   */
  public List<float[]> streamEncodeDense(
      String modelId,
      List<String> texts,
      boolean query,
      int chunkSize,
      java.util.function.IntConsumer progress) {
    List<float[]> vectors = new ArrayList<>(texts.size());
    return policy.resuming(
        () -> {
          if (vectors.size() == texts.size()) {
            return vectors;
          }
          Iterator<StreamEncodeDenseResponse> chunks =
              stub()
                  .streamEncodeDense(
                      StreamEncodeDenseRequest.newBuilder()
                          .setRequest(
                              EncodeDenseRequest.newBuilder()
                                  .setModelId(modelId)
                                  .addAllTexts(texts.subList(vectors.size(), texts.size()))
                                  .setRole(role(query)))
                          .setChunkSize(chunkSize)
                          .build());
          while (chunks.hasNext()) {
            vectors.addAll(toArrays(chunks.next().getVectorsList()));
            progress.accept(vectors.size());
          }
          return vectors;
        },
        vectors::size);
  }

  /** Learned sparse vectors (id → weight maps) of texts in one call. */
  public List<java.util.Map<Integer, Float>> encodeSparse(
      String modelId, List<String> texts, boolean query) {
    List<java.util.Map<Integer, Float>> out = new ArrayList<>();
    for (SparseVector vector : encodeSparseVectors(modelId, texts, query)) {
      java.util.Map<Integer, Float> weights = new java.util.HashMap<>();
      for (int i = 0; i < vector.getIndicesCount(); i++) {
        weights.put(vector.getIndices(i), vector.getValues(i));
      }
      out.add(weights);
    }
    return out;
  }

  /** Learned sparse vectors of texts in one call, as the contract carries them. */
  public List<SparseVector> encodeSparseVectors(String modelId, List<String> texts, boolean query) {
    return retrying(
            () ->
                stub()
                    .encodeSparse(
                        EncodeSparseRequest.newBuilder()
                            .setModelId(modelId)
                            .addAllTexts(texts)
                            .setRole(role(query))
                            .build()))
        .getVectorsList();
  }

  /** Per-token vectors of texts: each as [tokens][dimension]. */
  public List<float[][]> encodeMultiVector(String modelId, List<String> texts, boolean query) {
    List<float[][]> out = new ArrayList<>();
    for (MultiVector vector : encodeMultiVectors(modelId, texts, query)) {
      out.add(rows(vector));
    }
    return out;
  }

  /** Per-token vectors of texts in one call, as the contract carries them. */
  public List<MultiVector> encodeMultiVectors(String modelId, List<String> texts, boolean query) {
    return retrying(
            () ->
                stub()
                    .encodeMultiVector(
                        EncodeMultiVectorRequest.newBuilder()
                            .setModelId(modelId)
                            .addAllTexts(texts)
                            .setRole(role(query))
                            .build()))
        .getVectorsList();
  }

  /**
   * Learned sparse vectors of many texts through the server-streaming RPC, in order; resumed after
   * UNAVAILABLE as {@link #streamEncodeDense} is.
   */
  public List<SparseVector> streamEncodeSparse(
      String modelId,
      List<String> texts,
      boolean query,
      int topK,
      int chunkSize,
      IntConsumer progress) {
    List<SparseVector> vectors = new ArrayList<>(texts.size());
    return policy.resuming(
        () -> {
          if (vectors.size() == texts.size()) {
            return vectors;
          }
          Iterator<StreamEncodeSparseResponse> chunks =
              stub()
                  .streamEncodeSparse(
                      StreamEncodeSparseRequest.newBuilder()
                          .setRequest(
                              EncodeSparseRequest.newBuilder()
                                  .setModelId(modelId)
                                  .addAllTexts(texts.subList(vectors.size(), texts.size()))
                                  .setRole(role(query))
                                  .setTopK(topK))
                          .setChunkSize(chunkSize)
                          .build());
          while (chunks.hasNext()) {
            for (var vector : chunks.next().getVectorsList()) {
              vectors.add(vector);
            }
            progress.accept(vectors.size());
          }
          return vectors;
        },
        vectors::size);
  }

  /**
   * Per-token vectors ([tokens][dimension]) of many texts through the server-streaming RPC, in
   * order.
   */
  public List<float[][]> streamEncodeMultiVector(
      String modelId, List<String> texts, boolean query, int chunkSize, IntConsumer progress) {
    List<float[][]> matrices = new ArrayList<>(texts.size());
    for (MultiVector vector :
        streamEncodeMultiVectors(modelId, texts, query, chunkSize, progress)) {
      matrices.add(rows(vector));
    }
    return matrices;
  }

  /**
   * Per-token vectors of many texts through the server-streaming RPC, in order, as carried; resumed
   * after UNAVAILABLE as {@link #streamEncodeDense} is.
   */
  public List<MultiVector> streamEncodeMultiVectors(
      String modelId, List<String> texts, boolean query, int chunkSize, IntConsumer progress) {
    List<MultiVector> vectors = new ArrayList<>(texts.size());
    return policy.resuming(
        () -> {
          if (vectors.size() == texts.size()) {
            return vectors;
          }
          Iterator<StreamEncodeMultiVectorResponse> chunks =
              stub()
                  .streamEncodeMultiVector(
                      StreamEncodeMultiVectorRequest.newBuilder()
                          .setRequest(
                              EncodeMultiVectorRequest.newBuilder()
                                  .setModelId(modelId)
                                  .addAllTexts(texts.subList(vectors.size(), texts.size()))
                                  .setRole(role(query)))
                          .setChunkSize(chunkSize)
                          .build());
          while (chunks.hasNext()) {
            vectors.addAll(chunks.next().getVectorsList());
            progress.accept(vectors.size());
          }
          return vectors;
        },
        vectors::size);
  }

  /** LightRetriever sparse query vectors: token counts over the vocabulary (no model inference). */
  public List<SparseVector> encodeLightSparse(String modelId, List<String> queries) {
    var response =
        retrying(
            () ->
                stub()
                    .encodeLightQuery(
                        EncodeLightQueryRequest.newBuilder()
                            .setModelId(modelId)
                            .addAllQueries(queries)
                            .setKind(LightQueryKind.LIGHT_QUERY_KIND_SPARSE)
                            .build()));
    return response.getSparseList();
  }

  /** Token ids of texts as the model sees them (prompt and special tokens included, truncated). */
  public Tokens tokenize(String modelId, List<String> texts, boolean query) {
    List<TokenizedText> tokenized = tokenizedTexts(modelId, texts, query);
    long[][] ids = new long[tokenized.size()][];
    boolean[] truncated = new boolean[ids.length];
    for (int i = 0; i < ids.length; i++) {
      TokenizedText text = tokenized.get(i);
      ids[i] = text.getIdsList().stream().mapToLong(Integer::longValue).toArray();
      truncated[i] = text.getTruncated();
    }
    return new Tokens(ids, truncated);
  }

  /** Texts as the model tokenizes them, with the token strings, as the contract carries them. */
  public List<TokenizedText> tokenizedTexts(String modelId, List<String> texts, boolean query) {
    TokenizeResponse response =
        retrying(
            () ->
                stub()
                    .tokenize(
                        TokenizeRequest.newBuilder()
                            .setModelId(modelId)
                            .addAllTexts(texts)
                            .setRole(role(query))
                            .build()));
    return response.getTextsList();
  }

  /**
   * Has the encoder build (or resume, or reuse) the LightRetriever token-embedding cache of {@code
   * modelId} in its own cache directory, and waits for it; {@code progress} hears (rows done,
   * vocabulary size) while it builds. An interrupted build resumes where it stopped, so UNAVAILABLE
   * is retried like any call.
   *
   * @param dtype row storage of a new cache (UNSPECIFIED: FP32)
   * @param batchSize tokens per forward pass; 0 lets the service choose
   */
  public LightCache buildLightCache(
      String modelId, LightCacheDtype dtype, int batchSize, LightCacheProgress progress) {
    return buildLightCache(modelId, dtype, 0, batchSize, progress);
  }

  /**
   * As {@link #buildLightCache(String, LightCacheDtype, int, LightCacheProgress)}, at {@code
   * dimensions}: 0 = the card's dimension, else one of its Matryoshka dimensions (a separate table,
   * each token's row truncated and normalised at that width).
   */
  public LightCache buildLightCache(
      String modelId,
      LightCacheDtype dtype,
      int dimensions,
      int batchSize,
      LightCacheProgress progress) {
    BuildLightCacheRequest request =
        BuildLightCacheRequest.newBuilder()
            .setModelId(modelId)
            .setDtype(dtype)
            .setDimensions(dimensions)
            .setBatchSize(batchSize)
            .build();
    return retrying(
        () -> {
          // A listener that throws (a cancelled job) cancels the call, so the service stops
          // building.
          Context.CancellableContext call = Context.current().withCancellation();
          try {
            return call.call(() -> readBuild(stub().buildLightCache(request), progress));
          } catch (RuntimeException e) {
            throw e;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          } finally {
            call.cancel(null);
          }
        });
  }

  private static LightCache readBuild(
      Iterator<BuildLightCacheResponse> messages, LightCacheProgress progress) {
    while (messages.hasNext()) {
      BuildLightCacheResponse message = messages.next();
      progress.rowsDone(message.getRowsDone(), message.getVocabularySize());
      if (message.hasCache()) {
        return message.getCache();
      }
    }
    throw Status.INTERNAL
        .withDescription("the encoder ended BuildLightCache without the finished cache")
        .asRuntimeException();
  }

  /** Told how far a LightRetriever cache build has got. */
  @FunctionalInterface
  public interface LightCacheProgress {
    void rowsDone(int rows, int vocabularySize);
  }

  /** Cards of the models the service can load without the network (every page). */
  public List<dev.tenbin.proto.encoder.v1.ModelCard> listModels() {
    return Pages.all(
        token -> {
          var page =
              retrying(
                  () ->
                      stub()
                          .listModels(ListModelsRequest.newBuilder().setPageToken(token).build()));
          return new Pages.Page<>(page.getModelsList(), page.getNextPageToken());
        });
  }

  private static InputRole role(boolean query) {
    return query ? InputRole.INPUT_ROLE_QUERY : InputRole.INPUT_ROLE_DOCUMENT;
  }

  private static float[][] rows(MultiVector vector) {
    float[][] rows = new float[vector.getTokenCount()][vector.getDimension()];
    for (int t = 0; t < rows.length; t++) {
      for (int d = 0; d < vector.getDimension(); d++) {
        rows[t][d] = vector.getValues(t * vector.getDimension() + d);
      }
    }
    return rows;
  }

  /** LightRetriever dense query vectors (no model inference). */
  public List<float[]> encodeLightDense(String modelId, List<String> queries, int dimensions) {
    return toArrays(
        retrying(
                () ->
                    stub()
                        .encodeLightQuery(
                            EncodeLightQueryRequest.newBuilder()
                                .setModelId(modelId)
                                .addAllQueries(queries)
                                .setKind(LightQueryKind.LIGHT_QUERY_KIND_DENSE)
                                .setDimensions(dimensions)
                                .setNormalize(true)
                                .build()))
            .getDenseList());
  }

  public GetModelInfoResponse modelInfo(String modelId) {
    return retrying(
        () -> stub().getModelInfo(GetModelInfoRequest.newBuilder().setModelId(modelId).build()));
  }

  private <T> T retrying(Supplier<T> call) {
    return policy.retrying(call);
  }

  static List<float[]> toArrays(List<DenseVector> vectors) {
    List<float[]> out = new ArrayList<>(vectors.size());
    for (DenseVector vector : vectors) {
      float[] values = new float[vector.getValuesCount()];
      for (int i = 0; i < values.length; i++) {
        values[i] = vector.getValues(i);
      }
      out.add(values);
    }
    return out;
  }
}
