package dev.tenbin.encoder.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.light.TokenEmbeddingCache;
import dev.tenbin.encoder.registry.BuiltinModels;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.testing.fuzz.ProtoFuzz;
import dev.tenbin.testing.fuzz.RpcFuzzer;
import dev.tenbin.testing.models.TinyModels;
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
 * Fuzzes every RPC of the encoder service in-process over tiny dense, sparse and multi-vector
 * models (and a LightRetriever cache): malformed requests never get INTERNAL or UNKNOWN, never
 * hang, and the service still encodes a valid request afterwards. Model ids naming a built-in model
 * or a pinned hub repository are rewritten before sending (loading 100 MB models or downloading is
 * not what this target is for); an unpinned {@code hub:} id is kept and must be refused.
 */
class EncoderRpcFuzzTest {
  private static Path dir;
  private static EncoderServer.Embedded server;
  private static ManagedChannel channel;
  private static RpcFuzzer fuzzer;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("encoder-fuzz");
    Path models = dir.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.dense(models, "tiny-dense-fp16", true);
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    String name = "encoder-fuzz-" + UUID.randomUUID();
    server =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(models, dir.resolve("cache"))
                .withHubEndpoint("http://127.0.0.1:9"),
            new SimpleMeterRegistry());
    var model = server.core().model("tiny-dense");
    TokenEmbeddingCache.build(
        model,
        TokenEmbeddingCache.folder(dir.resolve("cache"), model.card()),
        4,
        4,
        0,
        false,
        done -> {});
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    List<String> texts =
        List.of("apple banana", "query cherry date", "fig", "grape elder apple apple");
    ProtoFuzz generator =
        new ProtoFuzz(
            Map.of(
                "model_id",
                    List.of(
                        "tiny-dense",
                        "tiny-dense-fp16",
                        "tiny-splade",
                        "tiny-colbert",
                        "unknown-model",
                        "hub:owner/name"),
                "texts", texts,
                "queries", texts));
    fuzzer =
        new RpcFuzzer(
            channel,
            EncoderServiceGrpc.getServiceDescriptor(),
            generator,
            EncoderRpcFuzzTest::offline,
            Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
    deleteRecursively(dir);
  }

  @FuzzTest
  void everyRpcAnswersHostileRequestsWithAClientStatus(FuzzedDataProvider data) {
    fuzzer.call(data);
    var still =
        EncoderServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .encodeDense(
                EncodeDenseRequest.newBuilder()
                    .setModelId("tiny-dense")
                    .addTexts("apple banana")
                    .setRole(InputRole.INPUT_ROLE_DOCUMENT)
                    .build());
    assertThat(still.getVectorsList())
        .singleElement()
        .satisfies(v -> assertThat(v.getValuesCount()).isEqualTo(TinyModels.HIDDEN));
  }

  /**
   * Built-in model ids become a tiny model; a pinned hub id loses its revision (refused before any
   * download).
   */
  private static String offline(String text) {
    if (BuiltinModels.ids().contains(text.toLowerCase(Locale.ROOT))) {
      return "tiny-dense";
    }
    return text.startsWith("hub:") ? text.replace("@", "") : text;
  }

  static void deleteRecursively(Path root) throws Exception {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
