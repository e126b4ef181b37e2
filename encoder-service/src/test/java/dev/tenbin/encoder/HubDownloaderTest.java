package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.registry.ModelRegistry;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.ModelFiles;
import dev.tenbin.model.card.Pooling;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.testing.models.FakeHub;
import dev.tenbin.testing.models.TinyModels;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hub downloads against a fake hub on loopback: pinned revision, resolved SHA, cached once. */
class HubDownloaderTest {
  private static final String SHA = FakeHub.SHA;
  @TempDir Path tmp;
  FakeHub hub;
  String endpoint;

  /** Repository → file → bytes; every repository's "main" and "v1.0" resolve to {@link #SHA}. */
  Map<String, Map<String, byte[]>> repositories;

  List<String> requests;

  @BeforeEach
  void startFakeHub() {
    hub = new FakeHub();
    endpoint = hub.endpoint();
    repositories = hub.repositories;
    requests = hub.requests;
  }

  @AfterEach
  void stopFakeHub() {
    hub.close();
  }

  /** The files of a tiny local model folder, optionally without its card. */
  private Map<String, byte[]> files(Path folder, boolean withCard) throws IOException {
    Map<String, byte[]> files = new ConcurrentHashMap<>();
    files.put("model.onnx", Files.readAllBytes(folder.resolve("model.onnx")));
    files.put("tokenizer.json", Files.readAllBytes(folder.resolve("tokenizer.json")));
    if (withCard) {
      files.put("card.json", Files.readAllBytes(folder.resolve("card.json")));
    }
    return files;
  }

  @Test
  void downloadsAPinnedRevisionOnceAndRecordsTheResolvedSha() throws Exception {
    Path source = TinyModels.dense(tmp.resolve("src"), "tiny", false);
    repositories.put("acme/tiny", files(source, true));
    ModelRegistry registry =
        new ModelRegistry(null, new HubDownloader(endpoint, tmp.resolve("cache"), null));
    ModelFiles files = registry.load("hub:acme/tiny@v1.0");
    assertThat(files.card().resolvedSha()).isEqualTo(SHA);
    assertThat(files.card().revision()).isEqualTo("v1.0");
    assertThat(files.card().source()).isEqualTo("hub:acme/tiny@v1.0");
    assertThat(files.onnx()).isEqualTo(Files.readAllBytes(source.resolve("model.onnx")));
    assertThat(requests).contains("/acme/tiny/resolve/" + SHA + "/model.onnx");

    requests.clear();
    registry.load("hub:acme/tiny@" + SHA);
    assertThat(requests).as("a finished download pinned by SHA is never fetched again").isEmpty();
  }

  @Test
  void anUnreachableHubNamesTheUrlTheReasonHfEndpointAndTheOfflineWay() throws Exception {
    int closedPort;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    ModelRegistry registry =
        new ModelRegistry(
            null, new HubDownloader("http://127.0.0.1:" + closedPort, tmp.resolve("cache"), null));

    assertThatThrownBy(() -> registry.load("hub:acme/tiny@v1.0"))
        .hasMessageContaining("cannot reach the hub at http://127.0.0.1:" + closedPort + "/")
        .hasMessageContaining("HF_ENDPOINT")
        .hasMessageContaining("To work offline, pin the model's revision to a commit SHA")
        .hasMessageNotContaining("null");
  }

  @Test
  void aSentenceTransformersRepositoryWithoutACardGetsOneFromItsMetadata() throws Exception {
    Path source = TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    Map<String, byte[]> files = files(source, false);
    files.put("onnx/model.onnx", files.remove("model.onnx"));
    files.put(
        "modules.json",
        bytes(
            """
            [{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
             {"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},
             {"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]"""));
    files.put(
        "1_Pooling/config.json",
        bytes(
            "{\"word_embedding_dimension\": 8, \"pooling_mode_cls_token\": false, \"pooling_mode_mean_tokens\": true}"));
    files.put(
        "sentence_bert_config.json", bytes("{\"max_seq_length\": 32, \"do_lower_case\": false}"));
    files.put(
        "config_sentence_transformers.json",
        bytes("{\"prompts\": {\"query\": \"query \", \"document\": \"\"}}"));
    repositories.put("acme/st-model", files);

    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
            .withHubEndpoint(endpoint);
    try (EncoderCore core = new EncoderCore(config)) {
      ModelCard card = core.model("hub:acme/st-model@main").card();
      assertThat(card.pooling()).isEqualTo(Pooling.MEAN);
      assertThat(card.normalize()).isTrue();
      assertThat(card.dimension()).isEqualTo(8);
      assertThat(card.maxLength()).isEqualTo(32);
      assertThat(card.queryPrompt()).isEqualTo("query ");
      assertThat(card.onnxFile()).isEqualTo("onnx/model.onnx");
      assertThat(card.resolvedSha()).isEqualTo(SHA);
      // The same graph, tokenizer, pooling and prompt as the local folder: the same vector.
      float[] fromHub =
          core.encodeDense(
                  "hub:acme/st-model@main", List.of("apple banana"), true, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      float[] local =
          core.encodeDense("tiny-dense", List.of("apple banana"), true, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertThat(fromHub).containsExactly(local);
    }
  }

  @Test
  void aLocalCardMayNameItsFilesOnTheHub() throws Exception {
    Path source = TinyModels.dense(tmp.resolve("src"), "tiny", false);
    repositories.put("acme/tiny", files(source, false));
    Path folder = Files.createDirectories(tmp.resolve("models").resolve("my-model"));
    Files.writeString(
        folder.resolve("card.json"),
        "{\"id\": \"my-model\", \"source\": \"hub:acme/tiny@"
            + SHA
            + "\", \"pooling\": \"CLS\", \"normalize\": true, \"dimension\": 8}");
    ModelRegistry registry =
        new ModelRegistry(
            tmp.resolve("models"), new HubDownloader(endpoint, tmp.resolve("cache"), null));
    ModelFiles files = registry.load("my-model");
    assertThat(files.card().id()).isEqualTo("my-model");
    assertThat(files.card().pooling()).isEqualTo(Pooling.CLS);
    assertThat(files.card().resolvedSha()).isEqualTo(SHA);
    assertThat(files.onnx()).isEqualTo(Files.readAllBytes(source.resolve("model.onnx")));
  }

  @Test
  void aRepositoryItCannotMapExactlyIsRefusedWithAdvice() throws Exception {
    Path source = TinyModels.dense(tmp.resolve("src"), "tiny", false);
    Map<String, byte[]> files = files(source, false);
    files.put(
        "modules.json",
        bytes(
            """
            [{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
             {"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},
             {"idx":2,"name":"2","path":"2_Dense","type":"sentence_transformers.models.Dense"}]"""));
    files.put("1_Pooling/config.json", bytes("{\"pooling_mode_mean_tokens\": true}"));
    repositories.put("acme/projected", files);
    repositories.put("acme/bare", files(source, false));
    HubDownloader downloader = new HubDownloader(endpoint, tmp.resolve("cache"), null);
    assertThatThrownBy(() -> downloader.fetch(HubDownloader.Reference.parse("acme/projected@main")))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("Dense")
        .hasMessageContaining("write a card.json");
    assertThatThrownBy(() -> downloader.fetch(HubDownloader.Reference.parse("acme/bare@main")))
        .isInstanceOf(PreconditionException.class)
        .hasMessageContaining("modules.json");
  }

  @Test
  void hubModelsNeedAPinnedRevision() {
    assertThatThrownBy(() -> HubDownloader.Reference.parse("acme/tiny"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("pinned revision");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
