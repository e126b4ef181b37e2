package dev.tenbin.rerank.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.rerank.config.RerankServiceConfig;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.HostPort;
import dev.tenbin.rpc.Rendezvous;
import dev.tenbin.rpc.ServiceEndpoint;
import dev.tenbin.rpc.ServiceTarget;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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

  /**
   * A server on an ephemeral loopback port without metrics, over empty model folders, its encoder
   * unreachable, with {@code extra} flags.
   */
  private RerankServiceConfig localServer(String... extra) {
    String[] base = {
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
    String[] all = java.util.Arrays.copyOf(base, base.length + extra.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return parse(all);
  }

  /** A plaintext channel to a started server. */
  private static ManagedChannel clientOf(RerankServer.Running running) {
    return ManagedChannelBuilder.forAddress("127.0.0.1", running.host().port())
        .usePlaintext()
        .build();
  }

  /** A rerank stub whose calls give up after 30 s. */
  private static dev.tenbin.proto.rerank.v1.RerankServiceGrpc.RerankServiceBlockingStub rerankStub(
      ManagedChannel client) {
    return dev.tenbin.proto.rerank.v1.RerankServiceGrpc.newBlockingStub(client)
        .withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  /** A fake index service on an ephemeral loopback port. */
  private static GrpcServerHost fakeIndex(io.grpc.BindableService index) {
    return GrpcServerHost.start(
        new dev.tenbin.rpc.ServerSettings(
            "127.0.0.1", 0, -1, 64 * 1024 * 1024, Duration.ofSeconds(1)),
        List.of(index));
  }

  @Test
  void byDefaultLocalCrossEncodersMayLoadHubDownloadsMayNotAndIdleOnesUnload() {
    RerankServiceConfig config = parse();
    assertThat(config.models().allow()).containsExactly("builtin:*", "local:*");
    assertThat(config.models().idleUnload()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void anIndexServiceForCandidatesByIdIsOneHostPortOrTheIndexPodsAndNoneByDefault() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        System.getenv("TENBIN_INDEX_ENDPOINT") == null
            && System.getenv("TENBIN_INDEX_PODS") == null,
        "TENBIN_INDEX_ENDPOINT or TENBIN_INDEX_PODS is set");
    assertThat(parse().index()).isNull();
    assertThat(parse("--index-endpoint", "index.tenbin:50052").index().targets())
        .containsExactly(ServiceTarget.direct("index.tenbin", 50052));
    ServiceEndpoint pods =
        parse("--index-pods", "index-0.index-headless:50052,index-1.index-headless:50052").index();
    assertThat(pods.placed()).isTrue();
    assertThat(pods.targets())
        .containsExactly(
            ServiceTarget.direct("index-0.index-headless", 50052),
            ServiceTarget.direct("index-1.index-headless", 50052));
    assertThatThrownBy(() -> parse("--index-endpoint", "dns:///index-headless:50052"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--index-endpoint must be HOST:PORT");
    assertThatThrownBy(() -> parse("--index-endpoint", "index"))
        .isInstanceOf(dev.tenbin.core.InvalidInputException.class)
        .hasMessageContaining("--index-endpoint");
    assertThatThrownBy(
            () -> parse("--index-endpoint", "index:50052", "--index-pods", "index-0.h:50052"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not both");
    assertThatThrownBy(() -> parse("--index-pods", "index-0.h:50052,index-0.h:50052"))
        .isInstanceOf(dev.tenbin.core.InvalidInputException.class)
        .hasMessageContaining("--index-pods names a pod twice");
  }

  @Test
  void withTheIndexPodsEachRequestByIdFetchesFromThePodThatHoldsItsCollection() {
    Map<Integer, List<String>> askedByPort = new ConcurrentHashMap<>();
    List<GrpcServerHost> pods = new ArrayList<>();
    try {
      for (int pod = 0; pod < 3; pod++) {
        List<String> asked = new CopyOnWriteArrayList<>();
        var host = fakeIndex(notFoundIndexRecording(asked));
        pods.add(host);
        askedByPort.put(host.port(), asked);
      }
      List<String> podNames = pods.stream().map(p -> "127.0.0.1:" + p.port()).toList();
      // The pods' names carry ports the system chose, so which pod holds a name differs from run
      // to run; take the first names that give every pod two collections (a dozen names leave a
      // pod empty in about one run in forty).
      Rendezvous placement = new Rendezvous(podNames);
      List<String> collections = collectionsHoldingAtLeast(2, placement, podNames);
      try (RerankServer.Running rerank =
          RerankServer.start(localServer("--index-pods", String.join(",", podNames)))) {
        ManagedChannel client = clientOf(rerank);
        try {
          var stub = rerankStub(client);
          for (String collection : collections) {
            assertThatThrownBy(
                    () ->
                        stub.rerank(
                            dev.tenbin.proto.rerank.v1.RerankRequest.newBuilder()
                                .setModelId("any")
                                .setQuery("q")
                                .setIndexDocuments(
                                    dev.tenbin.proto.rerank.v1.IndexDocuments.newBuilder()
                                        .setCollection(collection)
                                        .addIds("d1"))
                                .build()))
                .isInstanceOfSatisfying(
                    StatusRuntimeException.class,
                    e ->
                        assertThat(e.getStatus().getCode())
                            .isEqualTo(io.grpc.Status.Code.NOT_FOUND));
          }
        } finally {
          client.shutdownNow();
        }
      }
      // Each collection was asked of exactly the pod rendezvous placement over the same names
      // gives it, the placement the orchestrator created it by.
      Set<Integer> podsAsked = new HashSet<>();
      for (String collection : collections) {
        int holder = HostPort.parse("pod", placement.nodeOf(collection)).port();
        assertThat(askedByPort.get(holder)).as(collection).contains(collection);
        askedByPort.forEach(
            (port, asked) -> {
              if (port != holder) {
                assertThat(asked).as(collection + " at " + port).doesNotContain(collection);
              }
            });
        podsAsked.add(holder);
      }
      assertThat(podsAsked).as("every one of the 3 pods was asked").hasSize(3);
    } finally {
      pods.forEach(GrpcServerHost::close);
    }
  }

  /** The first names {@code eval-0, eval-1, ...} that give every node at least {@code each}. */
  private static List<String> collectionsHoldingAtLeast(
      int each, Rendezvous placement, List<String> nodes) {
    Map<String, Integer> held = new HashMap<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; nodes.stream().anyMatch(n -> held.getOrDefault(n, 0) < each); i++) {
      assertThat(i).as("names tried before every pod held %d", each).isLessThan(10_000);
      String name = "eval-" + i;
      names.add(name);
      held.merge(placement.nodeOf(name), 1, Integer::sum);
    }
    return names;
  }

  /** An index whose GetDocuments records the collection it was asked about and finds nothing. */
  private static io.grpc.BindableService notFoundIndexRecording(List<String> asked) {
    return new dev.tenbin.proto.index.v1.IndexServiceGrpc.IndexServiceImplBase() {
      @Override
      public void getDocuments(
          dev.tenbin.proto.index.v1.GetDocumentsRequest request,
          io.grpc.stub.StreamObserver<dev.tenbin.proto.index.v1.GetDocumentsResponse> responses) {
        asked.add(request.getCollection());
        responses.onError(
            dev.tenbin.rpc.StatusMapper.withField(
                com.google.rpc.Code.NOT_FOUND,
                "collection " + request.getCollection() + " holds no such document",
                "ids[0]"));
      }
    };
  }

  @Test
  void crossEncodersRunOnTheCpuByDefault() {
    assertThat(parse().runtime().cuda()).isFalse();
    assertThat(parse().runtime().provider()).isEqualTo("CPU");
  }

  @Test
  void cudaIsRefusedAtStartWithWhatToDoWhenTheBuildHasNoCudaProvider() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        dev.tenbin.model.onnx.OnnxEnvironment.cudaAvailable(),
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
                    new dev.tenbin.model.onnx.OnnxModel.RuntimeOptions(1, true)))
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
    RerankServer.Running running = RerankServer.start(localServer());
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
    var notFound =
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
    var index = fakeIndex(notFound);
    var request =
        dev.tenbin.proto.rerank.v1.RerankRequest.newBuilder()
            .setModelId("any")
            .setQuery("q")
            .setIndexDocuments(
                dev.tenbin.proto.rerank.v1.IndexDocuments.newBuilder()
                    .setCollection("corpus")
                    .addIds("missing"))
            .build();
    try (RerankServer.Running connected =
            RerankServer.start(localServer("--index-endpoint", "127.0.0.1:" + index.port()));
        RerankServer.Running alone = RerankServer.start(localServer())) {
      for (var running : List.of(connected, alone)) {
        ManagedChannel client = clientOf(running);
        try {
          var stub = rerankStub(client);
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
