package dev.tenbin.rerank.grpc;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.model.onnx.OnnxEnvironment;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.common.v1.Metadata;
import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoRequest;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoResponse;
import dev.tenbin.proto.rerank.v1.ListRerankersRequest;
import dev.tenbin.proto.rerank.v1.ListRerankersResponse;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankResponse;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.proto.rerank.v1.RerankerKind;
import dev.tenbin.proto.rerank.v1.ScoreHead;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.bi.BiEncoderReranker;
import dev.tenbin.rerank.cross.RerankerCard;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rerank.cross.ScorePrecision;
import dev.tenbin.rpc.Paging;
import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * Thin adapter from {@code tenbin.rerank.v1} to {@link RerankCore}; candidates given by id ({@code
 * index_documents}) are resolved by the core into the same candidates inline ones become.
 */
public final class RerankGrpcService extends RerankServiceGrpc.RerankServiceImplBase {
  private final RerankCore core;

  public RerankGrpcService(RerankCore core) {
    this.core = core;
  }

  @Override
  public void rerank(RerankRequest request, StreamObserver<RerankResponse> responses) {
    ScorePrecision precision = precision(request);
    List<RerankCore.Candidate> candidates;
    if (request.hasIndexDocuments()) {
      if (request.getCandidatesCount() > 0) {
        throw new InvalidInputException(
            "index_documents",
            "give the candidates either inline (candidates) or by id (index_documents), not both");
      }
      candidates =
          core.candidatesById(
              request.getIndexDocuments().getCollection(),
              request.getIndexDocuments().getShards(),
              request.getIndexDocuments().getReplicas(),
              request.getIndexDocuments().getIdsList());
    } else {
      candidates = new ArrayList<>(request.getCandidatesCount());
      for (Candidate candidate : request.getCandidatesList()) {
        candidates.add(new RerankCore.Candidate(candidate.getDocId(), candidate.getText()));
      }
    }

    Context context = Context.current();
    Cancellation cancellation = context::isCancelled;
    RerankCore.Reranked reranked =
        core.rerank(
            request.getModelId(),
            request.getQuery(),
            candidates,
            precision,
            request.getTopK(),
            cancellation);
    RerankResponse.Builder response =
        RerankResponse.newBuilder()
            .setMetadata(Metadata.newBuilder().setInferenceNanos(reranked.inferenceNanos()));
    int rank = 1;
    for (RerankCore.Scored doc : reranked.documents()) {
      response.addDocuments(
          ScoredDocument.newBuilder().setDocId(doc.docId()).setScore(doc.score()).setRank(rank++));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  /**
   * The request's score precision: FP32 unless MODEL_DTYPE is asked for; a value this service does
   * not know is INVALID_ARGUMENT naming {@code precision}, never a silent FP32.
   */
  static ScorePrecision precision(RerankRequest request) {
    return switch (request.getPrecision()) {
      case SCORE_PRECISION_UNSPECIFIED, SCORE_PRECISION_FP32 -> ScorePrecision.FP32;
      case SCORE_PRECISION_MODEL_DTYPE -> ScorePrecision.MODEL_DTYPE;
      case UNRECOGNIZED ->
          throw new InvalidInputException(
              "precision",
              "unknown precision "
                  + request.getPrecisionValue()
                  + ": SCORE_PRECISION_FP32 (1, the default, also for 0) or"
                  + " SCORE_PRECISION_MODEL_DTYPE (2)");
    };
  }

  /**
   * Any id {@code Rerank} accepts: a cross-encoder (loaded once to read its dtype and files hash),
   * or a retrieval model {@code dense:}, {@code sparse:} or {@code multivector:MODEL} described by
   * the encoder service. {@code id} is a cross-encoder card's id (part of stored cells' identity; a
   * hub repository's name for a hub cross-encoder without a Tenbin card), a retrieval model's id as
   * asked.
   */
  @Override
  public void getRerankerInfo(
      GetRerankerInfoRequest request, StreamObserver<GetRerankerInfoResponse> responses) {
    String id = request.getModelId();
    RerankerInfo info;
    if (BiEncoderReranker.handles(id)) {
      GetModelInfoResponse model = core.retrievalModels().describe(id);
      info =
          retrievalModel(id, BiEncoderReranker.head(id)).toBuilder()
              .setRevision(
                  model.getCard().getResolvedSha().isEmpty()
                      ? model.getCard().getRevision()
                      : model.getCard().getResolvedSha())
              .setSource(model.getCard().getSource())
              .setDtype(model.getCard().getDtype())
              .setMaxLength(model.getCard().getMaxLength())
              .setProvenance(model.getProvenance())
              .build();
    } else {
      RerankerRegistry.Info model = core.crossEncoders().info(id);
      info =
          info(model.card(), model.dtype()).toBuilder()
              .setProvenance(provenance(core.crossEncoders().runtime(), model.modelSha256()))
              .build();
    }
    responses.onNext(GetRerankerInfoResponse.newBuilder().setInfo(info).build());
    responses.onCompleted();
  }

  /**
   * Every reranker this service offers, nothing loaded to list them: the cross-encoders of the
   * models folder it may load (dtype empty), those loaded by hub id, then the retrieval-model
   * families {@code dense:MODEL}, {@code sparse:MODEL} and {@code multivector:MODEL}. (No
   * cross-encoder is built in: none is published on Maven Central.)
   */
  @Override
  public void listRerankers(
      ListRerankersRequest request, StreamObserver<ListRerankersResponse> responses) {
    List<RerankerInfo> all = new ArrayList<>();
    for (RerankerCard card : core.crossEncoders().available()) {
      all.add(
          info(card, "").toBuilder()
              .setProvenance(provenance(core.crossEncoders().runtime(), ""))
              .build());
    }
    core.crossEncoders()
        .hubLoaded()
        .forEach(
            (id, model) ->
                all.add(
                    info(model.card(), model.dtype()).toBuilder()
                        .setId(id)
                        .setProvenance(
                            provenance(core.crossEncoders().runtime(), model.modelSha256()))
                        .build()));
    for (String family : List.of("dense:MODEL", "sparse:MODEL", "multivector:MODEL")) {
      all.add(retrievalModel(family, BiEncoderReranker.head(family)));
    }
    Paging.Page<RerankerInfo> page =
        Paging.page("rerankers", all, request.getPageSize(), request.getPageToken());
    responses.onNext(
        ListRerankersResponse.newBuilder()
            .addAllRerankers(page.items())
            .setNextPageToken(page.nextPageToken())
            .build());
    responses.onCompleted();
  }

  private static RerankerInfo retrievalModel(String id, dev.tenbin.rerank.cross.ScoreHead head) {
    return RerankerInfo.newBuilder()
        .setId(id)
        .setKind(RerankerKind.RERANKER_KIND_RETRIEVAL_MODEL)
        .setSource("encoder")
        .setHead(ScoreHead.valueOf("SCORE_HEAD_" + head.name()))
        .build();
  }

  /**
   * Where scores are computed: the cross-encoders' provider and device, this process's ONNX Runtime
   * release and the reranker's files hash (empty when not loaded).
   */
  private static RuntimeProvenance provenance(
      OnnxModel.RuntimeOptions runtime, String modelSha256) {
    return RuntimeProvenance.newBuilder()
        .setExecutionProvider(runtime.provider())
        .setDevice(runtime.device())
        .setDeviceId(runtime.deviceId())
        .setOnnxruntimeVersion(OnnxEnvironment.version())
        .setModelSha256(modelSha256)
        .build();
  }

  private static RerankerInfo info(RerankerCard card, String dtype) {
    return RerankerInfo.newBuilder()
        .setId(card.id())
        .setRevision(card.resolvedSha().isEmpty() ? card.revision() : card.resolvedSha())
        .setSource(card.resolvedSha().isEmpty() ? "local" : "hub")
        .setKind(RerankerKind.RERANKER_KIND_CROSS_ENCODER)
        .setHead(ScoreHead.valueOf("SCORE_HEAD_" + card.head().name()))
        .setDtype(dtype)
        .setMaxLength(card.maxLength())
        .setPromptTemplate(card.promptTemplate())
        .build();
  }
}
