package dev.tenbin.rerank.cross;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.rerank.v1.GetRerankerInfoRequest;
import dev.tenbin.proto.rerank.v1.ListRerankersRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.proto.rerank.v1.RerankerInfo;
import dev.tenbin.proto.rerank.v1.RerankerKind;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.grpc.RerankGrpcService;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.testing.models.FakeHub;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-encoders loaded by hub id from a fake hub, their head read from the repository's
 * config.json, against the same graphs loaded from local folders with written cards.
 */
class HubRerankerTest {
  private static final int V = TinyModels.VOCABULARY;
  private static final int H = TinyModels.HIDDEN;
  private static final List<String> DOCUMENTS = List.of("banana cherry", "fig", "apple grape date");

  @TempDir Path tmp;
  FakeHub hub;

  @BeforeEach
  void startHub() {
    hub = new FakeHub();
  }

  @AfterEach
  void stopHub() {
    hub.close();
  }

  private static byte[] classifier(int labels) {
    return TinyOnnxModels.pairClassifier(
        TinyOnnxModels.table(V, H, 1), TinyOnnxModels.table(H, labels, 2), V, H, labels, false);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A repository laid out as Hugging Face's cross-encoders are: onnx/model.onnx, no card.json. */
  private Map<String, byte[]> crossEncoderRepository(String name, int labels, String config) {
    Map<String, byte[]> files = hub.repository(name);
    files.put("onnx/model.onnx", classifier(labels));
    files.put("tokenizer.json", TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    files.put("config.json", bytes(config));
    files.put("tokenizer_config.json", bytes("{\"model_max_length\": 128}"));
    return files;
  }

  private void localFolder(String id, int labels, String card) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("models").resolve(id));
    Files.write(dir.resolve("model.onnx"), classifier(labels));
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    Files.writeString(dir.resolve("card.json"), card);
  }

  private RerankerRegistry registry() {
    return new RerankerRegistry(
        tmp.resolve("models"),
        new HubDownloader(hub.endpoint(), tmp.resolve("cache"), null),
        OnnxModel.RuntimeOptions.cpu(1),
        4096);
  }

  private static float[] scores(RerankerRegistry registry, String id) {
    try (var model = registry.acquire(id)) {
      return model.model().score("apple", DOCUMENTS, ScorePrecision.FP32, Cancellation.NEVER);
    }
  }

  @Test
  void aOneLabelCrossEncoderLoadsByHubIdWithASigmoidHeadAtItsPinnedRevision() throws Exception {
    crossEncoderRepository(
        "cross-encoder/tiny-ce",
        1,
        "{\"architectures\": [\"BertForSequenceClassification\"], \"id2label\": {\"0\": \"LABEL_0\"},"
            + " \"max_position_embeddings\": 512}");
    localFolder("local-ce", 1, "{\"id\": \"local-ce\", \"head\": \"SIGMOID\"}");
    try (RerankerRegistry registry = registry()) {
      RerankerRegistry.Info info = registry.info("hub:cross-encoder/tiny-ce@main");
      assertThat(info.card().head()).isEqualTo(ScoreHead.SIGMOID);
      assertThat(info.card().id()).isEqualTo("cross-encoder/tiny-ce");
      assertThat(info.card().revision()).isEqualTo("main");
      assertThat(info.card().resolvedSha()).isEqualTo(FakeHub.SHA);
      assertThat(info.card().maxLength()).as("tokenizer_config's model_max_length").isEqualTo(128);
      assertThat(hub.requests)
          .contains("/cross-encoder/tiny-ce/resolve/" + FakeHub.SHA + "/onnx/model.onnx");
      assertThat(scores(registry, "hub:cross-encoder/tiny-ce@main"))
          .as("the same graph as the local folder with a SIGMOID card")
          .containsExactly(scores(registry, "local-ce"));
    }
    Path cached = tmp.resolve("cache/hub/cross-encoder--tiny-ce").resolve(FakeHub.SHA);
    assertThat(cached.resolve("onnx/model.onnx")).exists();
    assertThat(cached.resolve(".complete")).exists();

    hub.requests.clear();
    try (RerankerRegistry again = registry()) {
      again.info("hub:cross-encoder/tiny-ce@" + FakeHub.SHA);
    }
    assertThat(hub.requests)
        .as("a finished download pinned by SHA is read from the cache")
        .isEmpty();
  }

  @Test
  void overGrpcAHubCrossEncoderIsDescribedAndThenListedByItsHubId() throws Exception {
    crossEncoderRepository(
        "cross-encoder/tiny-ce",
        1,
        "{\"architectures\": [\"BertForSequenceClassification\"], \"num_labels\": 1}");
    String name = "rerank-hub-" + java.util.UUID.randomUUID();
    try (RerankCore core =
            new RerankCore(
                registry(),
                () -> {
                  throw new IllegalStateException("no encoder in this test");
                },
                100);
        GrpcServerHost host =
            GrpcServerHost.startInProcess(
                name, new SimpleMeterRegistry(), List.of(new RerankGrpcService(core)))) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
      try {
        var stub = RerankServiceGrpc.newBlockingStub(channel);
        String id = "hub:cross-encoder/tiny-ce@main";
        assertThat(stub.listRerankers(ListRerankersRequest.getDefaultInstance()).getRerankersList())
            .extracting(RerankerInfo::getId)
            .doesNotContain(id);
        RerankerInfo info =
            stub.getRerankerInfo(GetRerankerInfoRequest.newBuilder().setModelId(id).build())
                .getInfo();
        assertThat(info.getSource()).isEqualTo("hub");
        assertThat(info.getRevision()).isEqualTo(FakeHub.SHA);
        assertThat(info.getHead())
            .isEqualTo(dev.tenbin.proto.rerank.v1.ScoreHead.SCORE_HEAD_SIGMOID);
        assertThat(info.getProvenance().getModelSha256()).hasSize(64);
        RerankerInfo listed =
            stub
                .listRerankers(ListRerankersRequest.getDefaultInstance())
                .getRerankersList()
                .stream()
                .filter(reranker -> reranker.getId().equals(id))
                .findFirst()
                .orElseThrow();
        assertThat(listed.getRevision()).isEqualTo(FakeHub.SHA);
        assertThat(listed.getKind()).isEqualTo(RerankerKind.RERANKER_KIND_CROSS_ENCODER);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void aTwoLabelCrossEncoderGetsTheSoftmaxOfItsPositiveLabel() throws Exception {
    crossEncoderRepository(
        "acme/two-label",
        2,
        "{\"architectures\": [\"XLMRobertaForSequenceClassification\"], \"num_labels\": 2}");
    localFolder("local-two", 2, "{\"id\": \"local-two\", \"head\": \"SOFTMAX2\"}");
    try (RerankerRegistry registry = registry()) {
      assertThat(registry.info("hub:acme/two-label@v1.0").card().head())
          .isEqualTo(ScoreHead.SOFTMAX2);
      assertThat(scores(registry, "hub:acme/two-label@v1.0"))
          .containsExactly(scores(registry, "local-two"));
    }
  }

  @Test
  void aLocalCardNamingTheHubRepositoryOverridesWhatConfigJsonSays() throws Exception {
    crossEncoderRepository(
        "acme/two-label",
        2,
        "{\"architectures\": [\"BertForSequenceClassification\"], \"num_labels\": 2}");
    Path dir = Files.createDirectories(tmp.resolve("models").resolve("first-logit"));
    Files.writeString(
        dir.resolve("card.json"),
        "{\"id\": \"first-logit\", \"source\": \"hub:acme/two-label@main\", \"head\": \"SIGMOID\","
            + " \"max_length\": 32}");
    try (RerankerRegistry registry = registry()) {
      RerankerCard card = registry.info("first-logit").card();
      assertThat(card.head()).isEqualTo(ScoreHead.SIGMOID);
      assertThat(card.maxLength()).isEqualTo(32);
      assertThat(card.resolvedSha()).isEqualTo(FakeHub.SHA);
      // And the hub id itself still reads config.json: its card is not the local one.
      assertThat(registry.info("hub:acme/two-label@main").card().head())
          .isEqualTo(ScoreHead.SOFTMAX2);
    }
  }

  @Test
  void aRepositoryItCannotMapIsRefusedNamingModelIdWithAdvice() {
    crossEncoderRepository(
        "acme/three-labels",
        2,
        "{\"architectures\": [\"BertForSequenceClassification\"], \"num_labels\": 3}");
    crossEncoderRepository("acme/causal-lm", 2, "{\"architectures\": [\"Qwen3ForCausalLM\"]}");
    crossEncoderRepository(
            "acme/no-onnx", 1, "{\"architectures\": [\"BertForSequenceClassification\"]}")
        .remove("onnx/model.onnx");
    try (RerankerRegistry registry = registry()) {
      for (String[] refusal :
          new String[][] {
            {"hub:acme/three-labels@main", "3 labels"},
            {"hub:acme/causal-lm@main", "YES_NO"},
            {"hub:acme/no-onnx@main", "no ONNX export"}
          }) {
        assertThatThrownBy(() -> registry.info(refusal[0]))
            .as(refusal[0])
            .isInstanceOf(PreconditionException.class)
            .hasMessageContaining(refusal[1])
            .hasMessageContaining("write a reranker card.json")
            .extracting(e -> ((PreconditionException) e).field())
            .isEqualTo("model_id");
      }
    }
  }
}
