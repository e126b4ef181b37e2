package dev.tenbin.rerank.grpc;

import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.onnx.OnnxEnvironment;
import dev.tenbin.encoder.onnx.OnnxModel;
import dev.tenbin.proto.common.v1.Metadata;
import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoRequest;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoResponse;
import dev.tenbin.proto.rerank.v1.ListRerankersRequest;
import dev.tenbin.proto.rerank.v1.ListRerankersResponse;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankResponse;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.proto.rerank.v1.ScoreHead;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.cross.RerankerCard;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rerank.cross.ScorePrecision;
import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/** Thin adapter from {@code tenbin.rerank.v1} to {@link RerankCore}. */
public final class RerankGrpcService extends RerankServiceGrpc.RerankServiceImplBase {
  private final RerankCore core;

  public RerankGrpcService(RerankCore core) {
    this.core = core;
  }

  @Override
  public void rerank(RerankRequest request, StreamObserver<RerankResponse> responses) {
    List<RerankCore.Candidate> candidates = new ArrayList<>(request.getCandidatesCount());
    for (Candidate candidate : request.getCandidatesList()) {
      candidates.add(new RerankCore.Candidate(candidate.getDocId(), candidate.getText()));
    }
    ScorePrecision precision =
        request.getPrecision()
                == dev.tenbin.proto.rerank.v1.ScorePrecision.SCORE_PRECISION_MODEL_DTYPE
            ? ScorePrecision.MODEL_DTYPE
            : ScorePrecision.FP32;
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

  @Override
  public void getRerankerInfo(
      GetRerankerInfoRequest request, StreamObserver<GetRerankerInfoResponse> responses) {
    RerankerRegistry.Info model = core.crossEncoders().info(request.getModelId());
    RerankerInfo info =
        info(model.card(), model.dtype()).toBuilder()
            .setProvenance(provenance(core.crossEncoders().runtime(), model.modelSha256()))
            .build();
    responses.onNext(GetRerankerInfoResponse.newBuilder().setInfo(info).build());
    responses.onCompleted();
  }

  /**
   * The cross-encoders of the models folder this service may load (dtype empty: none is loaded to
   * list it).
   */
  @Override
  public void listRerankers(
      ListRerankersRequest request, StreamObserver<ListRerankersResponse> responses) {
    ListRerankersResponse.Builder response = ListRerankersResponse.newBuilder();
    for (RerankerCard card : core.crossEncoders().available()) {
      response.addRerankers(
          info(card, "").toBuilder().setProvenance(provenance(core.crossEncoders().runtime(), "")));
    }
    responses.onNext(response.build());
    responses.onCompleted();
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
        .setHead(ScoreHead.valueOf("SCORE_HEAD_" + card.head().name()))
        .setDtype(dtype)
        .setMaxLength(card.maxLength())
        .setPromptTemplate(card.promptTemplate())
        .build();
  }
}
