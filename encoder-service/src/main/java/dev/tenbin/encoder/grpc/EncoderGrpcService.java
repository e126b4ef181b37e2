package dev.tenbin.encoder.grpc;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.TenbinException;
import dev.tenbin.encoder.EncodeResult;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.SparseVector;
import dev.tenbin.encoder.light.CacheManifest;
import dev.tenbin.encoder.light.LightQueryEncoder;
import dev.tenbin.encoder.light.RowFormat;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.tokenizer.TokenizedBatch;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.encoder.v1.BuildLightCacheRequest;
import dev.tenbin.proto.encoder.v1.BuildLightCacheResponse;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.EncodeLightQueryRequest;
import dev.tenbin.proto.encoder.v1.EncodeLightQueryResponse;
import dev.tenbin.proto.encoder.v1.EncodeMultiVectorRequest;
import dev.tenbin.proto.encoder.v1.EncodeMultiVectorResponse;
import dev.tenbin.proto.encoder.v1.EncodeSparseRequest;
import dev.tenbin.proto.encoder.v1.EncodeSparseResponse;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.GetModelInfoRequest;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.LightCache;
import dev.tenbin.proto.encoder.v1.LightCacheDtype;
import dev.tenbin.proto.encoder.v1.LightQueryKind;
import dev.tenbin.proto.encoder.v1.ListModelsRequest;
import dev.tenbin.proto.encoder.v1.ListModelsResponse;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseResponse;
import dev.tenbin.proto.encoder.v1.TokenizeRequest;
import dev.tenbin.proto.encoder.v1.TokenizeResponse;
import dev.tenbin.proto.encoder.v1.TokenizedText;
import dev.tenbin.rpc.CallArrival;
import dev.tenbin.rpc.Paging;
import dev.tenbin.rpc.ResponseSequence;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.function.BiFunction;

/** Thin adapter from {@code tenbin.encoder.v1} to {@link EncoderCore}. */
public final class EncoderGrpcService extends EncoderServiceGrpc.EncoderServiceImplBase {
  private static final int DEFAULT_CHUNK = 64;
  private final EncoderCore core;
  private final LightQueryEncoder light;

  public EncoderGrpcService(EncoderCore core, LightQueryEncoder light) {
    this.core = core;
    this.light = light;
  }

  /**
   * The call's cancellation, knowing when it arrived: the encoder's wait bound counts the call's
   * wait for a handler thread too ({@link CallArrival}).
   */
  private static Cancellation cancellation() {
    return CallArrival.cancellation();
  }

  @Override
  public void encodeDense(
      EncodeDenseRequest request, StreamObserver<EncodeDenseResponse> responses) {
    EncodeResult<float[]> result =
        core.encodeDense(
            request.getModelId(),
            request.getTextsList(),
            ProtoConversions.isQuery(request.getRole()),
            request.getDimensions(),
            cancellation());
    EncodeDenseResponse.Builder response =
        EncodeDenseResponse.newBuilder().setMetadata(ProtoConversions.metadata(result));
    result.vectors().forEach(v -> response.addVectors(ProtoConversions.dense(v)));
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void streamEncodeDense(
      StreamEncodeDenseRequest stream, StreamObserver<StreamEncodeDenseResponse> responses) {
    EncodeDenseRequest request = stream.getRequest();
    boolean query = ProtoConversions.isQuery(request.getRole());
    Cancellation cancellation = cancellation();
    streamChunks(
        responses,
        request.getTextsList(),
        stream.getChunkSize(),
        (offset, texts) -> {
          EncodeResult<float[]> result =
              core.encodeDense(
                  request.getModelId(),
                  texts,
                  query,
                  request.getDimensions(),
                  chunkCancellation(cancellation, offset));
          StreamEncodeDenseResponse.Builder response =
              StreamEncodeDenseResponse.newBuilder()
                  .setOffset(offset)
                  .setMetadata(ProtoConversions.metadata(result));
          result.vectors().forEach(v -> response.addVectors(ProtoConversions.dense(v)));
          return response.build();
        });
  }

  /**
   * The first chunk of a stream counts the call's wait since it arrived against the wait bound; the
   * later ones follow the call's own work, which is no wait.
   */
  private static Cancellation chunkCancellation(Cancellation call, int offset) {
    return offset == 0 ? call : Cancellation.withoutWait(call);
  }

  /**
   * Encodes {@code texts} in chunks, one chunk each time the reader can take a message: the work
   * runs in the call's on-ready callbacks (grpc-java's manual flow control), so a slow reader holds
   * at most one encoded chunk and no thread waits for it. Failures propagate to the
   * exception-mapping interceptor, which closes the call with the mapped status; a failure of the
   * embedded request names its field from {@code request}.
   */
  private void streamChunks(
      StreamObserver<?> responses,
      List<String> texts,
      int chunkSize,
      BiFunction<Integer, List<String>, ?> encodeChunk) {
    if (chunkSize < 0) {
      throw new InvalidInputException("chunk_size", "chunk_size must not be negative");
    }
    try {
      if (texts.isEmpty()) {
        throw new InvalidInputException("texts", "at least one text is required");
      }
      core.checkRequestChars(texts);
    } catch (TenbinException e) {
      throw e.within("request");
    }
    @SuppressWarnings("unchecked")
    ServerCallStreamObserver<Object> stream = (ServerCallStreamObserver<Object>) responses;
    int chunk = chunkSize == 0 ? DEFAULT_CHUNK : chunkSize;
    ResponseSequence.send(
        stream,
        new ResponseSequence.Source<>() {
          private int next;

          @Override
          public boolean hasNext() {
            return next < texts.size();
          }

          @Override
          public Object next() {
            int from = next;
            int to = Math.min(texts.size(), from + chunk);
            next = texts.size(); // a failing chunk ends the stream
            Object response;
            try {
              response = encodeChunk.apply(from, texts.subList(from, to));
            } catch (TenbinException e) {
              throw e.within("request");
            }
            next = to;
            return response;
          }
        });
  }

  @Override
  public void streamEncodeSparse(
      dev.tenbin.proto.encoder.v1.StreamEncodeSparseRequest stream,
      StreamObserver<dev.tenbin.proto.encoder.v1.StreamEncodeSparseResponse> responses) {
    EncodeSparseRequest request = stream.getRequest();
    boolean query = ProtoConversions.isQuery(request.getRole());
    Cancellation cancellation = cancellation();
    streamChunks(
        responses,
        request.getTextsList(),
        stream.getChunkSize(),
        (offset, texts) -> {
          EncodeResult<SparseVector> result =
              core.encodeSparse(
                  request.getModelId(),
                  texts,
                  query,
                  request.getTopK(),
                  chunkCancellation(cancellation, offset));
          var response =
              dev.tenbin.proto.encoder.v1.StreamEncodeSparseResponse.newBuilder()
                  .setOffset(offset)
                  .setMetadata(ProtoConversions.metadata(result));
          result.vectors().forEach(v -> response.addVectors(ProtoConversions.sparse(v)));
          return response.build();
        });
  }

  @Override
  public void streamEncodeMultiVector(
      dev.tenbin.proto.encoder.v1.StreamEncodeMultiVectorRequest stream,
      StreamObserver<dev.tenbin.proto.encoder.v1.StreamEncodeMultiVectorResponse> responses) {
    EncodeMultiVectorRequest request = stream.getRequest();
    boolean query = ProtoConversions.isQuery(request.getRole());
    Cancellation cancellation = cancellation();
    streamChunks(
        responses,
        request.getTextsList(),
        stream.getChunkSize(),
        (offset, texts) -> {
          EncodeResult<float[]> result =
              core.encodeMultiVector(
                  request.getModelId(), texts, query, chunkCancellation(cancellation, offset));
          int width = core.info(request.getModelId()).card().dimension();
          var response =
              dev.tenbin.proto.encoder.v1.StreamEncodeMultiVectorResponse.newBuilder()
                  .setOffset(offset)
                  .setMetadata(ProtoConversions.metadata(result));
          for (float[] matrix : result.vectors()) {
            MultiVector.Builder vector =
                MultiVector.newBuilder().setDimension(width).setTokenCount(matrix.length / width);
            for (float v : matrix) {
              vector.addValues(v);
            }
            response.addVectors(vector);
          }
          return response.build();
        });
  }

  @Override
  public void encodeSparse(
      EncodeSparseRequest request, StreamObserver<EncodeSparseResponse> responses) {
    EncodeResult<SparseVector> result =
        core.encodeSparse(
            request.getModelId(),
            request.getTextsList(),
            ProtoConversions.isQuery(request.getRole()),
            request.getTopK(),
            cancellation());
    EncodeSparseResponse.Builder response =
        EncodeSparseResponse.newBuilder().setMetadata(ProtoConversions.metadata(result));
    result.vectors().forEach(v -> response.addVectors(ProtoConversions.sparse(v)));
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void encodeMultiVector(
      EncodeMultiVectorRequest request, StreamObserver<EncodeMultiVectorResponse> responses) {
    EncodeResult<float[]> result =
        core.encodeMultiVector(
            request.getModelId(),
            request.getTextsList(),
            ProtoConversions.isQuery(request.getRole()),
            cancellation());
    int width = core.info(request.getModelId()).card().dimension();
    EncodeMultiVectorResponse.Builder response =
        EncodeMultiVectorResponse.newBuilder().setMetadata(ProtoConversions.metadata(result));
    for (float[] matrix : result.vectors()) {
      MultiVector.Builder vector =
          MultiVector.newBuilder().setDimension(width).setTokenCount(matrix.length / width);
      for (float v : matrix) {
        vector.addValues(v);
      }
      response.addVectors(vector);
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void encodeLightQuery(
      EncodeLightQueryRequest request, StreamObserver<EncodeLightQueryResponse> responses) {
    EncodeLightQueryResponse.Builder response = EncodeLightQueryResponse.newBuilder();
    long start = System.nanoTime();
    if (request.getKind() == LightQueryKind.LIGHT_QUERY_KIND_SPARSE) {
      for (SparseVector vector :
          light.sparse(request.getModelId(), request.getQueriesList(), request.getSparseTopK())) {
        response.addSparse(ProtoConversions.sparse(vector));
      }
    } else if (request.getKind() == LightQueryKind.LIGHT_QUERY_KIND_DENSE) {
      for (float[] vector :
          light.dense(
              request.getModelId(),
              request.getQueriesList(),
              request.getDimensions(),
              request.getNormalize())) {
        response.addDense(ProtoConversions.dense(vector));
      }
    } else {
      throw new InvalidInputException(
          "kind", "kind must be LIGHT_QUERY_KIND_DENSE or LIGHT_QUERY_KIND_SPARSE");
    }
    response.setMetadata(
        dev.tenbin.proto.common.v1.Metadata.newBuilder()
            .setTokenizeNanos(System.nanoTime() - start));
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void buildLightCache(
      BuildLightCacheRequest request, StreamObserver<BuildLightCacheResponse> responses) {
    RowFormat format =
        switch (request.getDtype()) {
          case LIGHT_CACHE_DTYPE_UNSPECIFIED, LIGHT_CACHE_DTYPE_FP32 -> RowFormat.FP32;
          case LIGHT_CACHE_DTYPE_FP16 -> RowFormat.FP16;
          case LIGHT_CACHE_DTYPE_INT8 -> RowFormat.INT8;
          case UNRECOGNIZED ->
              throw new InvalidInputException(
                  "dtype", "unknown dtype value " + request.getDtypeValue());
        };
    ServerCallStreamObserver<BuildLightCacheResponse> stream =
        (ServerCallStreamObserver<BuildLightCacheResponse>) responses;
    stream.setOnCancelHandler(() -> {});
    // Progress is advisory: a message is skipped while the client is not reading, never queued.
    LightQueryEncoder.BuiltCache built =
        light.buildCache(
            request.getModelId(),
            format,
            request.getDimensions(),
            request.getBatchSize(),
            (rows, vocabulary) -> {
              if (stream.isReady() && !stream.isCancelled()) {
                stream.onNext(
                    BuildLightCacheResponse.newBuilder()
                        .setRowsDone(rows)
                        .setVocabularySize(vocabulary)
                        .build());
              }
            },
            cancellation());
    CacheManifest manifest = built.manifest();
    stream.onNext(
        BuildLightCacheResponse.newBuilder()
            .setRowsDone(manifest.vocabularySize())
            .setVocabularySize(manifest.vocabularySize())
            .setCache(
                LightCache.newBuilder()
                    .setVocabularySize(manifest.vocabularySize())
                    .setDimension(manifest.dimension())
                    .setDtype(
                        switch (RowFormat.of(manifest.dtype())) {
                          case FP32 -> LightCacheDtype.LIGHT_CACHE_DTYPE_FP32;
                          case FP16 -> LightCacheDtype.LIGHT_CACHE_DTYPE_FP16;
                          case INT8 -> LightCacheDtype.LIGHT_CACHE_DTYPE_INT8;
                        })
                    .setLocation(built.folder().toString())
                    .setReused(built.reused()))
            .build());
    stream.onCompleted();
  }

  @Override
  public void tokenize(TokenizeRequest request, StreamObserver<TokenizeResponse> responses) {
    boolean query = request.getRole() == dev.tenbin.proto.encoder.v1.InputRole.INPUT_ROLE_QUERY;
    Cancellation cancellation = cancellation();
    TokenizedBatch batch =
        core.tokenize(request.getModelId(), request.getTextsList(), query, cancellation);
    List<String[]> tokens =
        core.tokenStrings(request.getModelId(), request.getTextsList(), query, cancellation);
    TokenizeResponse.Builder response = TokenizeResponse.newBuilder();
    for (int i = 0; i < batch.size(); i++) {
      TokenizedText.Builder text = TokenizedText.newBuilder().setTruncated(batch.truncated()[i]);
      for (long id : batch.ids()[i]) {
        text.addIds((int) id);
      }
      text.addAllTokens(List.of(tokens.get(i)));
      response.addTexts(text);
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  /**
   * The card, dtype, provenance (provider, device, ONNX Runtime release, model files hash) and
   * batch-invariance probe with its encoding policy; a model loaded for this is not kept (it
   * unloads when idle).
   */
  @Override
  public void getModelInfo(
      GetModelInfoRequest request, StreamObserver<GetModelInfoResponse> responses) {
    EncoderCore.ModelInfo info = core.info(request.getModelId());
    responses.onNext(
        GetModelInfoResponse.newBuilder()
            .setCard(ProtoConversions.card(info.card(), info.dtype()))
            .setExecutionProvider(core.config().runtime().provider())
            .setProvenance(ProtoConversions.provenance(core.config().runtime(), info.modelSha256()))
            .setBatchInvariance(ProtoConversions.batchInvariance(info.batchInvariance()))
            .build());
    responses.onCompleted();
  }

  @Override
  public void listModels(ListModelsRequest request, StreamObserver<ListModelsResponse> responses) {
    Paging.Page<ModelCard> page =
        Paging.page(
            "models", core.availableModels(), request.getPageSize(), request.getPageToken());
    ListModelsResponse.Builder response =
        ListModelsResponse.newBuilder().setNextPageToken(page.nextPageToken());
    for (ModelCard card : page.items()) {
      response.addModels(ProtoConversions.card(card, ""));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }
}
