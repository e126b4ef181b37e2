package dev.tenbin.rerank.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.encoder.model.HubDownloader;
import dev.tenbin.encoder.model.ModelPolicy;
import dev.tenbin.encoder.onnx.OnnxModel;
import dev.tenbin.encoder.testing.TinyModels;
import dev.tenbin.encoder.testing.TinyOnnxModels;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoRequest;
import dev.tenbin.proto.rerank.v1.ListRerankersRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.proto.rerank.v1.ScoreHead;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rerank service's listing and model-id checks over in-process gRPC. */
class RerankGrpcServiceTest {
  @TempDir Path tmp;
  private RerankCore core;
  private GrpcServerHost host;
  private ManagedChannel channel;
  private RerankServiceGrpc.RerankServiceBlockingStub stub;

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
    core =
        new RerankCore(
            registry,
            () -> {
              throw new IllegalStateException("no encoder in this test");
            },
            1000);
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
        .containsExactly("tiny-sigmoid", "tiny-yes-no");
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
        .isEqualTo(ai.onnxruntime.OrtEnvironment.getEnvironment().getVersion());
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
