package dev.tenbin.rerank.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.common.v1.RuntimeProvenance;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.GetModelInfoRequest;
import dev.tenbin.proto.encoder.v1.GetModelInfoResponse;
import dev.tenbin.proto.encoder.v1.ModelCard;
import dev.tenbin.proto.encoder.v1.OutputKind;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoRequest;
import dev.tenbin.proto.rerank.v1.ListRerankersRequest;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankResponse;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.proto.rerank.v1.RerankerKind;
import dev.tenbin.proto.rerank.v1.ScoreHead;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.bi.BiEncoderReranker;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rerank service over in-process gRPC: Rerank against the core, the listing, GetRerankerInfo of
 * every kind of id (retrieval models described by a fake encoder service) and the field each error
 * names.
 */
class RerankGrpcServiceTest {
  @TempDir Path tmp;
  private RerankCore core;
  private GrpcServerHost host;
  private ManagedChannel channel;
  private RerankServiceGrpc.RerankServiceBlockingStub stub;
  private Server encoder;
  private ManagedChannel encoderChannel;

  @BeforeEach
  void start() throws Exception {
    Path models = tmp.resolve("models");
    crossEncoder(
        models,
        "tiny-sigmoid",
        "{\"id\":\"tiny-sigmoid\",\"head\":\"SIGMOID\",\"revision\":\"r1\",\"max_length\":64}");
    crossEncoder(models, "tiny-yes-no", "{\"id\":\"tiny-yes-no\",\"head\":\"SOFTMAX2\"}");
    crossEncoder(models, "hidden-by-policy", "{\"id\":\"hidden-by-policy\",\"head\":\"SIGMOID\"}");
    TinyModels.dense(models, "an-encoder", false); // an encoder card: no score head, not a reranker
    RerankerRegistry registry =
        new RerankerRegistry(
            models,
            new HubDownloader("http://127.0.0.1:9", tmp.resolve("cache"), null),
            OnnxModel.RuntimeOptions.cpu(1),
            8192,
            ModelPolicy.of(List.of("local:tiny-*"), 0));
    String encoderName = "encoder-" + UUID.randomUUID();
    encoder =
        InProcessServerBuilder.forName(encoderName)
            .directExecutor()
            .addService(new FakeEncoder())
            .build()
            .start();
    encoderChannel = InProcessChannelBuilder.forName(encoderName).directExecutor().build();
    core =
        new RerankCore(
            registry, () -> new BiEncoderReranker(EncoderClient.of(encoderChannel)), 1000);
    String name = "rerank-" + UUID.randomUUID();
    host =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), List.of(new RerankGrpcService(core)));
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    stub = RerankServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    host.close();
    core.close();
    encoderChannel.shutdownNow();
    encoder.shutdownNow();
  }

  /**
   * An encoder service that knows three retrieval models, one of each family (GetModelInfo only:
   * describing a retrieval-model reranker needs nothing else).
   */
  private static final class FakeEncoder extends EncoderServiceGrpc.EncoderServiceImplBase {
    @Override
    public void getModelInfo(
        GetModelInfoRequest request, StreamObserver<GetModelInfoResponse> responses) {
      OutputKind kind =
          switch (request.getModelId()) {
            case "tiny-dense" -> OutputKind.OUTPUT_KIND_DENSE;
            case "tiny-sparse" -> OutputKind.OUTPUT_KIND_SPARSE;
            case "tiny-colbert" -> OutputKind.OUTPUT_KIND_MULTIVECTOR;
            default -> null;
          };
      if (kind == null) {
        responses.onError(
            StatusMapper.withField(
                com.google.rpc.Code.NOT_FOUND,
                "unknown model " + request.getModelId(),
                "model_id"));
        return;
      }
      responses.onNext(
          GetModelInfoResponse.newBuilder()
              .setCard(
                  ModelCard.newBuilder()
                      .setId(request.getModelId())
                      .setRevision("r7")
                      .setSource("builtin:" + request.getModelId())
                      .setMaxLength(256)
                      .setDtype("FLOAT")
                      .setOutputKind(kind))
              .setProvenance(
                  RuntimeProvenance.newBuilder()
                      .setExecutionProvider("CPU")
                      .setModelSha256("ab".repeat(32)))
              .build());
      responses.onCompleted();
    }
  }

  private static RerankRequest rerankRequest(String model, String query, String... texts) {
    RerankRequest.Builder request = RerankRequest.newBuilder().setModelId(model).setQuery(query);
    for (int i = 0; i < texts.length; i++) {
      request.addCandidates(Candidate.newBuilder().setDocId("d" + i).setText(texts[i]));
    }
    return request.build();
  }

  private static void assertFieldViolation(
      Runnable call, Status.Code code, String field, String description) {
    assertThatThrownBy(call::run)
        .as(description)
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(code);
              assertThat(StatusMapper.violatedField(e)).isEqualTo(field);
            });
  }

  @Test
  void rerankReturnsTheCoresScoresRankedBestFirst() {
    String[] texts = {"banana", "apple cherry", "fig grape", "date"};
    RerankResponse response = stub.rerank(rerankRequest("tiny-sigmoid", "apple", texts));

    List<RerankCore.Candidate> candidates = new java.util.ArrayList<>();
    for (int i = 0; i < texts.length; i++) {
      candidates.add(new RerankCore.Candidate("d" + i, texts[i]));
    }
    var expected =
        core.rerank(
            "tiny-sigmoid",
            "apple",
            candidates,
            dev.tenbin.rerank.cross.ScorePrecision.FP32,
            0,
            dev.tenbin.core.Cancellation.NEVER);
    assertThat(response.getDocumentsList())
        .extracting(ScoredDocument::getDocId)
        .containsExactlyElementsOf(
            expected.documents().stream().map(RerankCore.Scored::docId).toList());
    assertThat(response.getDocumentsList())
        .extracting(ScoredDocument::getScore)
        .containsExactlyElementsOf(
            expected.documents().stream().map(RerankCore.Scored::score).toList());
    assertThat(response.getDocumentsList())
        .extracting(ScoredDocument::getRank)
        .containsExactly(1, 2, 3, 4);
    assertThat(
            stub.rerank(
                    rerankRequest("tiny-sigmoid", "apple", texts).toBuilder().setTopK(2).build())
                .getDocumentsList())
        .extracting(ScoredDocument::getDocId)
        .containsExactlyElementsOf(
            expected.documents().subList(0, 2).stream().map(RerankCore.Scored::docId).toList());
  }

  @Test
  void getRerankerInfoAnswersEveryKindOfIdRerankAccepts() {
    RerankerInfo cross =
        stub.getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId("tiny-sigmoid").build())
            .getInfo();
    assertThat(cross.getId()).isEqualTo("tiny-sigmoid");
    assertThat(cross.getKind()).isEqualTo(RerankerKind.RERANKER_KIND_CROSS_ENCODER);
    assertThat(cross.getHead()).isEqualTo(ScoreHead.SCORE_HEAD_SIGMOID);
    assertThat(cross.getDtype()).isEqualTo("FLOAT");

    for (String[] family :
        new String[][] {
          {"dense:tiny-dense", "SCORE_HEAD_COSINE"},
          {"sparse:tiny-sparse", "SCORE_HEAD_SPARSE_DOT"},
          {"multivector:tiny-colbert", "SCORE_HEAD_MAX_SIM"}
        }) {
      RerankerInfo info =
          stub.getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId(family[0]).build())
              .getInfo();
      assertThat(info.getId()).isEqualTo(family[0]);
      assertThat(info.getKind()).isEqualTo(RerankerKind.RERANKER_KIND_RETRIEVAL_MODEL);
      assertThat(info.getHead().name()).isEqualTo(family[1]);
      assertThat(info.getRevision()).isEqualTo("r7");
      assertThat(info.getMaxLength()).isEqualTo(256);
      assertThat(info.getProvenance().getModelSha256())
          .as("the encoder's provenance of the model")
          .isEqualTo("ab".repeat(32));
    }
  }

  @Test
  void unknownAndMalformedIdsAreNotFoundOrInvalidArgumentNamingModelId() {
    for (String id : List.of("tiny-missing", "dense:missing", "sparse:nothing-here")) {
      assertFieldViolation(
          () -> stub.getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId(id).build()),
          Status.Code.NOT_FOUND,
          "model_id",
          "GetRerankerInfo " + id);
    }
    assertFieldViolation(
        () -> stub.rerank(rerankRequest("tiny-missing", "apple", "banana")),
        Status.Code.NOT_FOUND,
        "model_id",
        "Rerank tiny-missing");
    for (String id : List.of("dense:", "dense:tiny-sparse", "")) {
      assertFieldViolation(
          () -> stub.getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId(id).build()),
          Status.Code.INVALID_ARGUMENT,
          "model_id",
          "GetRerankerInfo '" + id + "'");
    }
  }

  @Test
  void badRerankRequestsAreInvalidArgumentNamingTheirField() {
    assertFieldViolation(
        () -> stub.rerank(rerankRequest("tiny-sigmoid", " ", "banana")),
        Status.Code.INVALID_ARGUMENT,
        "query",
        "blank query");
    assertFieldViolation(
        () -> stub.rerank(rerankRequest("tiny-sigmoid", "apple")),
        Status.Code.INVALID_ARGUMENT,
        "candidates",
        "no candidates");
    RerankRequest duplicate =
        rerankRequest("tiny-sigmoid", "apple", "banana").toBuilder()
            .addCandidates(Candidate.newBuilder().setDocId("d0").setText("fig"))
            .build();
    assertFieldViolation(
        () -> stub.rerank(duplicate),
        Status.Code.INVALID_ARGUMENT,
        "candidates[1].doc_id",
        "duplicate doc id");
    assertFieldViolation(
        () -> stub.rerank(rerankRequest("tiny-sigmoid", "apple", "banana", " ")),
        Status.Code.INVALID_ARGUMENT,
        "candidates[1].text",
        "blank text");
    assertFieldViolation(
        () ->
            stub.rerank(
                rerankRequest("tiny-sigmoid", "apple", "banana").toBuilder().setTopK(-1).build()),
        Status.Code.INVALID_ARGUMENT,
        "top_k",
        "negative top_k");
  }

  private static void crossEncoder(Path models, String id, String card) throws Exception {
    Path dir = Files.createDirectories(models.resolve(id));
    Files.write(
        dir.resolve("model.onnx"),
        TinyOnnxModels.pairClassifier(
            TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 1),
            TinyOnnxModels.table(TinyModels.HIDDEN, 2, 2),
            TinyModels.VOCABULARY,
            TinyModels.HIDDEN,
            2,
            false));
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    Files.writeString(dir.resolve("card.json"), card);
  }

  @Test
  void listRerankersNamesTheAllowedCrossEncodersOfTheModelsFolderWithoutLoadingThem() {
    List<RerankerInfo> listed =
        stub.listRerankers(ListRerankersRequest.getDefaultInstance()).getRerankersList();

    assertThat(listed)
        .extracting(RerankerInfo::getId)
        .containsExactly(
            "tiny-sigmoid", "tiny-yes-no", "dense:MODEL", "sparse:MODEL", "multivector:MODEL");
    assertThat(listed)
        .extracting(RerankerInfo::getKind)
        .containsExactly(
            RerankerKind.RERANKER_KIND_CROSS_ENCODER,
            RerankerKind.RERANKER_KIND_CROSS_ENCODER,
            RerankerKind.RERANKER_KIND_RETRIEVAL_MODEL,
            RerankerKind.RERANKER_KIND_RETRIEVAL_MODEL,
            RerankerKind.RERANKER_KIND_RETRIEVAL_MODEL);
    assertThat(listed.get(2).getHead()).isEqualTo(ScoreHead.SCORE_HEAD_COSINE);
    assertThat(listed.getFirst().getHead()).isEqualTo(ScoreHead.SCORE_HEAD_SIGMOID);
    assertThat(listed.getFirst().getRevision()).isEqualTo("r1");
    assertThat(listed.getFirst().getMaxLength()).isEqualTo(64);
    assertThat(listed.get(1).getHead()).isEqualTo(ScoreHead.SCORE_HEAD_SOFTMAX2);
    assertThat(core.crossEncoders().loadedIds()).isEmpty();
  }

  @Test
  void rerankerInfoRecordsTheProviderDeviceRuntimeAndTheModelFilesHash() throws Exception {
    RerankerInfo info =
        stub.getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId("tiny-sigmoid").build())
            .getInfo();

    var provenance = info.getProvenance();
    assertThat(provenance.getExecutionProvider()).isEqualTo("CPU");
    assertThat(provenance.getDevice()).isEqualTo("cpu/" + System.getProperty("os.arch"));
    assertThat(provenance.getOnnxruntimeVersion())
        .isEqualTo(dev.tenbin.model.onnx.OnnxEnvironment.version());
    assertThat(provenance.getModelSha256()).hasSize(64);
    String loadedHash = provenance.getModelSha256();
    assertThat(
            stub.getRerankerInfo(
                    GetRerankerInfoRequest.newBuilder().setModelId("tiny-yes-no").build())
                .getInfo()
                .getProvenance()
                .getModelSha256())
        .as("same graph and tokenizer, another card")
        .isNotEqualTo(loadedHash);
    assertThat(
            stub.listRerankers(ListRerankersRequest.getDefaultInstance())
                .getRerankers(0)
                .getProvenance()
                .getExecutionProvider())
        .isEqualTo("CPU");
  }

  @Test
  void aModifiedRerankerGraphHasAnotherHashOnceReloaded() throws Exception {
    Path models = tmp.resolve("models");
    String card = "{\"id\":\"tiny-sigmoid\",\"head\":\"SIGMOID\",\"revision\":\"r1\"}";
    var registry =
        new RerankerRegistry(
            models,
            new HubDownloader("http://127.0.0.1:9", tmp.resolve("cache"), null),
            OnnxModel.RuntimeOptions.cpu(1),
            8192);
    String before;
    try (registry) {
      before = registry.info("tiny-sigmoid").modelSha256();
    }
    Path onnx = models.resolve("tiny-sigmoid").resolve("model.onnx");
    byte[] bytes = Files.readAllBytes(onnx);
    bytes[bytes.length - 1] ^= 1;
    Files.write(onnx, bytes);
    Files.writeString(models.resolve("tiny-sigmoid").resolve("card.json"), card);
    try (var reloaded =
        new RerankerRegistry(
            models,
            new HubDownloader("http://127.0.0.1:9", tmp.resolve("cache"), null),
            OnnxModel.RuntimeOptions.cpu(1),
            8192)) {
      assertThat(reloaded.info("tiny-sigmoid").modelSha256()).hasSize(64).isNotEqualTo(before);
    }
  }

  @Test
  void aModelIdWithAControlCharacterOrOverlongIsInvalidArgumentNamingModelId() {
    for (String id :
        List.of("\u0000", "tiny-\nsigmoid", "tiny " + "x", "tiny-" + "x".repeat(300))) {
      assertThatThrownBy(
              () ->
                  stub.getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId(id).build()))
          .as("model id %s", id.length() > 20 ? id.substring(0, 20) + "…" : id)
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(StatusMapper.violatedField(e)).isEqualTo("model_id");
              });
    }
  }
}
