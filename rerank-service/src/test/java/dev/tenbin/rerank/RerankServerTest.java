package dev.tenbin.rerank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.rpc.HostPort;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * The rerank server's flags become its one config record; a started server closes what it opened.
 */
class RerankServerTest {
  @TempDir Path tmp;

  private static RerankServiceConfig parse(String... args) {
    RerankServer server = new RerankServer();
    new CommandLine(server).parseArgs(args);
    return server.config();
  }

  @Test
  void byDefaultLocalCrossEncodersMayLoadHubDownloadsMayNotAndIdleOnesUnload() {
    RerankServiceConfig config = parse();
    assertThat(config.models().allow()).containsExactly("builtin:*", "local:*");
    assertThat(config.models().idleUnload()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void anIndexServiceForCandidatesByIdIsOneHostPortAndNoneByDefault() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getenv("TENBIN_INDEX_ENDPOINT") == null, "TENBIN_INDEX_ENDPOINT is set");
    assertThat(parse().indexEndpoint()).isNull();
    assertThat(parse("--index-endpoint", "index.tenbin:50052").indexEndpoint())
        .isEqualTo(dev.tenbin.rpc.ServiceTarget.direct("index.tenbin", 50052));
    assertThatThrownBy(() -> parse("--index-endpoint", "dns:///index-headless:50052"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--index-endpoint must be HOST:PORT");
    assertThatThrownBy(() -> parse("--index-endpoint", "index"))
        .isInstanceOf(dev.tenbin.core.InvalidInputException.class)
        .hasMessageContaining("--index-endpoint");
  }

  @Test
  void crossEncodersRunOnTheCpuByDefault() {
    assertThat(parse().runtime().cuda()).isFalse();
    assertThat(parse().runtime().provider()).isEqualTo("CPU");
  }

  @Test
  void cudaIsRefusedAtStartWithWhatToDoWhenTheBuildHasNoCudaProvider() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        ai.onnxruntime.OrtEnvironment.getAvailableProviders()
            .contains(ai.onnxruntime.OrtProvider.CUDA),
        "this build carries the CUDA provider");
    assertThatThrownBy(() -> parse("--execution-provider", "cuda", "--device-id", "1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Pgpu");
    assertThatThrownBy(
            () ->
                RerankServer.core(
                    tmp.resolve("models"),
                    tmp.resolve("cache"),
                    () -> {
                      throw new IllegalStateException("no encoder");
                    },
                    10,
                    1024,
                    new dev.tenbin.encoder.onnx.OnnxModel.RuntimeOptions(1, true)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-Pgpu");
  }

  @Test
  void allowedModelsAndIdleTimeComeFromFlags() {
    RerankServiceConfig config =
        parse("--allow-models", "hub:cross-encoder/*,local:ms-*", "--model-idle-seconds", "30");
    assertThat(config.models().allow()).containsExactly("hub:cross-encoder/*", "local:ms-*");
    assertThat(config.models().idleUnload()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void everyOptionLandsInTheConfigRecord() {
    RerankServiceConfig config =
        parse(
            "--port",
            "7000",
            "--models-dir",
            "/m",
            "--cache-dir",
            "/c",
            "--hub-endpoint",
            "http://mirror.internal:8080",
            "--encoder-endpoint",
            "[::1]:6000",
            "--max-pairs-per-request",
            "50",
            "--max-batch-tokens",
            "1024");
    assertThat(config.server().port()).isEqualTo(7000);
    assertThat(config.modelsDirectory()).isEqualTo(Path.of("/m"));
    assertThat(config.cacheDirectory()).isEqualTo(Path.of("/c"));
    assertThat(config.hub().endpoint()).isEqualTo("http://mirror.internal:8080");
    assertThat(config.encoderEndpoint().address()).isEqualTo(new HostPort("::1", 6000));
    assertThat(config.maxPairsPerRequest()).isEqualTo(50);
    assertThat(config.maxBatchTokens()).isEqualTo(1024);
    assertThat(parse().server().port()).isEqualTo(RerankServiceConfig.DEFAULT_PORT);
    assertThat(parse().hub().endpoint())
        .as("the hub is not hard-coded: the flag or HF_ENDPOINT sets it")
        .isNotBlank();
  }

  @Test
  void aDnsEncoderEndpointSpreadsBiEncoderCallsOverTheEncoderReplicas() {
    assertThat(
            parse("--encoder-endpoint", "dns:///tenbin-encoder-headless:50051").encoderEndpoint())
        .isEqualTo(dev.tenbin.rpc.ServiceTarget.dns("tenbin-encoder-headless", 50051))
        .matches(dev.tenbin.rpc.ServiceTarget::balanced);
    assertThat(parse().encoderEndpoint().balanced()).isFalse();
  }

  @ParameterizedTest(name = "[{index}] {0} {1}")
  @CsvSource({
    "--max-pairs-per-request,0,--max-pairs-per-request must be at least 1",
    "--max-batch-tokens,0,--max-batch-tokens must be at least 1",
    "--model-idle-seconds,-1,--model-idle-seconds must not be negative",
    "--hub-endpoint,ftp://hub,--hub-endpoint (env HF_ENDPOINT) must be an http(s) URL",
    "--encoder-endpoint,encoder,--encoder-endpoint is missing its port",
    "--encoder-endpoint,::1:50051,--encoder-endpoint has several ':'",
    "--port,70000,--port must be within 0..65535",
  })
  void aBadValueIsRefusedAtStartNamingTheFlag(String flag, String value, String message) {
    assertThatThrownBy(() -> parse(flag, value))
        .isInstanceOfAny(IllegalArgumentException.class, InvalidInputException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aStoppedServerHasClosedItsCoreAndItsEncoderChannel() {
    RerankServiceConfig config =
        parse(
            "--port",
            "0",
            "--metrics-port",
            "-1",
            "--models-dir",
            tmp.resolve("models").toString(),
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--encoder-endpoint",
            "127.0.0.1:1");
    RerankServer.Running running = RerankServer.start(config);
    int port = running.host().port();
    ManagedChannel client =
        ManagedChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      assertThat(
              HealthGrpc.newBlockingStub(client)
                  .withDeadlineAfter(10, TimeUnit.SECONDS)
                  .check(HealthCheckRequest.getDefaultInstance())
                  .getStatus()
                  .name())
          .isEqualTo("SERVING");
      assertThat(running.encoderChannel().isShutdown()).isFalse();

      running.close();

      assertThat(running.encoderChannel().isShutdown()).as("encoder channel shut down").isTrue();
      assertThat(running.encoderChannel().isTerminated()).as("encoder channel terminated").isTrue();
      assertThatThrownBy(() -> running.core().crossEncoders().acquire("any-model"))
          .as("the core's cross-encoders are closed")
          .isInstanceOf(UnavailableException.class);
      assertThatThrownBy(
              () ->
                  HealthGrpc.newBlockingStub(client)
                      .withDeadlineAfter(10, TimeUnit.SECONDS)
                      .check(HealthCheckRequest.getDefaultInstance()))
          .isInstanceOf(StatusRuntimeException.class);
    } finally {
      client.shutdownNow();
      running.close();
    }
  }

  @Test
  void aNetworkServerFetchesCandidatesByIdFromItsIndexEndpoint() {
    var fakeIndex =
        new dev.tenbin.proto.index.v1.IndexServiceGrpc.IndexServiceImplBase() {
          @Override
          public void getDocuments(
              dev.tenbin.proto.index.v1.GetDocumentsRequest request,
              io.grpc.stub.StreamObserver<dev.tenbin.proto.index.v1.GetDocumentsResponse>
                  responses) {
            responses.onError(
                dev.tenbin.rpc.StatusMapper.withField(
                    com.google.rpc.Code.NOT_FOUND,
                    "collection " + request.getCollection() + " holds no such document",
                    "ids[0]"));
          }
        };
    var index =
        dev.tenbin.rpc.GrpcServerHost.start(
            new dev.tenbin.rpc.ServerSettings(
                "127.0.0.1", 0, -1, 64 * 1024 * 1024, Duration.ofSeconds(1)),
            java.util.List.<io.grpc.BindableService>of(fakeIndex));
    String[] common = {
      "--port",
      "0",
      "--metrics-port",
      "-1",
      "--models-dir",
      tmp.resolve("models").toString(),
      "--cache-dir",
      tmp.resolve("cache").toString(),
      "--encoder-endpoint",
      "127.0.0.1:1"
    };
    String[] withIndex = java.util.Arrays.copyOf(common, common.length + 2);
    withIndex[common.length] = "--index-endpoint";
    withIndex[common.length + 1] = "127.0.0.1:" + index.port();
    var request =
        dev.tenbin.proto.rerank.v1.RerankRequest.newBuilder()
            .setModelId("any")
            .setQuery("q")
            .setIndexDocuments(
                dev.tenbin.proto.rerank.v1.IndexDocuments.newBuilder()
                    .setCollection("corpus")
                    .addIds("missing"))
            .build();
    try (RerankServer.Running connected = RerankServer.start(parse(withIndex));
        RerankServer.Running alone = RerankServer.start(parse(common))) {
      for (var running : java.util.List.of(connected, alone)) {
        ManagedChannel client =
            ManagedChannelBuilder.forAddress("127.0.0.1", running.host().port())
                .usePlaintext()
                .build();
        try {
          var stub =
              dev.tenbin.proto.rerank.v1.RerankServiceGrpc.newBlockingStub(client)
                  .withDeadlineAfter(30, TimeUnit.SECONDS);
          boolean hasIndex = running == connected;
          assertThatThrownBy(() -> stub.rerank(request))
              .isInstanceOfSatisfying(
                  StatusRuntimeException.class,
                  e -> {
                    assertThat(e.getStatus().getCode())
                        .isEqualTo(
                            hasIndex
                                ? io.grpc.Status.Code.NOT_FOUND
                                : io.grpc.Status.Code.FAILED_PRECONDITION);
                    assertThat(dev.tenbin.rpc.StatusMapper.violatedField(e))
                        .isEqualTo(hasIndex ? "index_documents.ids[0]" : "index_documents");
                  });
        } finally {
          client.shutdownNow();
        }
      }
    } finally {
      index.close();
    }
  }
}
