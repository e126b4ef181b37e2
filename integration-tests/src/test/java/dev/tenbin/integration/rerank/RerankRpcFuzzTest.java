package dev.tenbin.integration.rerank;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.registry.BuiltinModels;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.model.hub.HubDownloader;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.cross.RerankerRegistry;
import dev.tenbin.rerank.grpc.RerankGrpcService;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.testing.fuzz.ProtoFuzz;
import dev.tenbin.testing.fuzz.RpcFuzzer;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes every RPC of the rerank service in-process: tiny cross-encoders of each score head and
 * bi-encoder rerankers ({@code dense:}, {@code sparse:}, {@code multivector:}) served by an
 * in-process encoder of tiny models. Contract: no INTERNAL or UNKNOWN, no hang, and a valid rerank
 * still answers afterwards. Built-in model ids and pinned hub ids are rewritten before sending, so
 * nothing is loaded from large jars or the network.
 */
class RerankRpcFuzzTest {
  private static final int V = TinyModels.VOCABULARY;
  private static final int H = TinyModels.HIDDEN;
  private static Path dir;
  private static EncoderServer.Embedded encoder;
  private static ManagedChannel encoderChannel;
  private static RerankCore core;
  private static GrpcServerHost host;
  private static ManagedChannel channel;
  private static RpcFuzzer fuzzer;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("rerank-fuzz");
    Path models = dir.resolve("models");
    float[] table = TinyOnnxModels.table(V, H, 1);
    model(
        models,
        "tiny-sigmoid",
        TinyOnnxModels.pairClassifier(table, TinyOnnxModels.table(H, 1, 2), V, H, 1, false),
        "{\"id\":\"tiny-sigmoid\",\"head\":\"SIGMOID\"}");
    model(
        models,
        "tiny-softmax",
        TinyOnnxModels.pairClassifier(table, TinyOnnxModels.table(H, 2, 3), V, H, 2, true),
        "{\"id\":\"tiny-softmax\",\"head\":\"SOFTMAX2\"}");
    model(
        models,
        "tiny-yesno",
        TinyOnnxModels.mlmEncoder(table, TinyOnnxModels.table(H, V, 5), V, H),
        "{\"id\":\"tiny-yesno\",\"head\":\"YES_NO\",\"prompt_template\":\"query {query} document {document}\",\"yes_token\":\"apple\",\"no_token\":\"banana\"}");
    Path encoderModels = dir.resolve("encoder-models");
    TinyModels.dense(encoderModels, "tiny-dense", false);
    TinyModels.sparse(encoderModels, "tiny-splade");
    TinyModels.multiVector(encoderModels, "tiny-colbert");
    String encoderName = "rerank-fuzz-encoder-" + UUID.randomUUID();
    encoder =
        EncoderServer.startInProcess(
            encoderName,
            EncoderServiceConfig.embedded(encoderModels, dir.resolve("encoder-cache"))
                .withHubEndpoint("http://127.0.0.1:9"),
            new SimpleMeterRegistry());
    encoderChannel = InProcessChannelBuilder.forName(encoderName).directExecutor().build();
    RerankerRegistry registry =
        new RerankerRegistry(
            models,
            new HubDownloader("http://127.0.0.1:9", dir.resolve("cache"), null),
            OnnxModel.RuntimeOptions.cpu(1),
            64);
    core =
        new RerankCore(
            registry,
            () ->
                new dev.tenbin.rerank.bi.BiEncoderReranker(
                    dev.tenbin.client.encoder.EncoderClient.of(encoderChannel)),
            1000);
    String name = "rerank-fuzz-" + UUID.randomUUID();
    host =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), List.of(new RerankGrpcService(core)));
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    // Load the cross-encoders before fuzzing: loading a tokenizer makes DJL call home (an HTTP
    // request to the EC2 metadata address, see FINDINGS), which Jazzer's SSRF detector reports on
    // every fuzzing run otherwise.
    for (String model : List.of("tiny-sigmoid", "tiny-softmax", "tiny-yesno")) {
      rerank(model);
    }
    List<String> texts = List.of("apple banana", "query cherry", "fig", "grape elder apple");
    ProtoFuzz generator =
        new ProtoFuzz(
            Map.of(
                "model_id",
                List.of(
                    "tiny-sigmoid",
                    "tiny-softmax",
                    "tiny-yesno",
                    "dense:tiny-dense",
                    "sparse:tiny-splade",
                    "multivector:tiny-colbert",
                    "dense:tiny-splade",
                    "dense:",
                    "unknown",
                    "hub:owner/name"),
                "query",
                texts,
                "text",
                texts,
                "doc_id",
                List.of("d1", "d2", "d3")));
    fuzzer =
        new RpcFuzzer(
            channel,
            RerankServiceGrpc.getServiceDescriptor(),
            generator,
            RerankRpcFuzzTest::offline,
            Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    host.close();
    core.close();
    encoderChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    encoder.close();
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  @FuzzTest
  void everyRpcAnswersHostileRequestsWithAClientStatus(FuzzedDataProvider data) {
    fuzzer.call(data);
    assertThat(rerank("tiny-sigmoid").getDocumentsList())
        .extracting(d -> d.getDocId())
        .containsExactlyInAnyOrder("a", "b");
  }

  private static dev.tenbin.proto.rerank.v1.RerankResponse rerank(String model) {
    return RerankServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(30, TimeUnit.SECONDS)
        .rerank(
            RerankRequest.newBuilder()
                .setModelId(model)
                .setQuery("apple")
                .addCandidates(Candidate.newBuilder().setDocId("a").setText("apple banana"))
                .addCandidates(Candidate.newBuilder().setDocId("b").setText("cherry"))
                .build());
  }

  private static void model(Path models, String id, byte[] onnx, String card) throws Exception {
    Path folder = Files.createDirectories(models.resolve(id));
    Files.write(folder.resolve("model.onnx"), onnx);
    Files.write(
        folder.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    Files.writeString(folder.resolve("card.json"), card);
  }

  /**
   * Built-in model ids become a tiny model; a pinned hub id loses its revision (refused before any
   * download).
   */
  private static String offline(String text) {
    int colon = text.indexOf(':');
    String model = colon >= 0 && !text.startsWith("hub:") ? text.substring(colon + 1) : text;
    if (BuiltinModels.ids().contains(model.toLowerCase(Locale.ROOT))) {
      return text.substring(0, text.length() - model.length()) + "tiny-dense";
    }
    return text.contains("hub:") ? text.replace("@", "") : text;
  }
}
