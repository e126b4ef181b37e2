package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.rpc.RequestInfo;
import dev.tenbin.rpc.testing.TestService;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GrpcServerHostTest {
  private final TestService service = new TestService();
  private GrpcServerHost host;
  private ManagedChannel channel;

  @BeforeEach
  void start() {
    host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, 0, 4096, Duration.ofSeconds(2)), List.of(service));
    channel = ClientChannels.open("127.0.0.1", host.port(), ClientSecurity.plaintext(), 1 << 20);
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    host.close();
  }

  @Test
  void servesHealthReflectionOldAndNewAndPrometheusMetricsPerRpc() throws Exception {
    TestService.check(channel, "ok");
    assertThat(
            HealthGrpc.newBlockingStub(channel)
                .check(HealthCheckRequest.newBuilder().setService(TestService.NAME).build())
                .getStatus())
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

    CompletableFuture<ServerReflectionResponse> listed = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> reflection =
        ServerReflectionGrpc.newStub(channel).serverReflectionInfo(completing(listed));
    reflection.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    reflection.onCompleted();
    assertThat(listed.get(5, TimeUnit.SECONDS).getListServicesResponse().getServiceList())
        .extracting(s -> s.getName())
        // Services generated from .proto files are listed too (see the services' own tests);
        // this hand-built test service has no file descriptor to list.
        .contains(
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection");

    CompletableFuture<io.grpc.reflection.v1alpha.ServerReflectionResponse> listedOld =
        new CompletableFuture<>();
    @SuppressWarnings("deprecation")
    StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> oldReflection =
        io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(channel)
            .serverReflectionInfo(completing(listedOld));
    oldReflection.onNext(
        io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder()
            .setListServices("")
            .build());
    oldReflection.onCompleted();
    assertThat(listedOld.get(5, TimeUnit.SECONDS).getListServicesResponse().getServiceList())
        .extracting(s -> s.getName())
        .contains("grpc.health.v1.Health");

    String metrics = scrape(host);
    assertThat(metrics)
        .contains("grpc_server_processing_duration_seconds_count")
        .contains("method=\"Check\"")
        // a bucketed histogram, so Prometheus can compute percentiles
        .containsPattern(
            "grpc_server_processing_duration_seconds_bucket\\{method=\"Check\".*le=\"0\\.001\"")
        .contains("jvm_memory_used_bytes")
        .contains("jvm_threads_live_threads")
        .contains("jvm_classes_loaded_classes")
        .contains("process_cpu_usage")
        .contains("process_uptime_seconds")
        .contains("process_files_open_files")
        .contains("process_resident_memory_bytes")
        .contains("tenbin_rpc_calls_active")
        .contains("tenbin_rpc_calls_limit");
  }

  @Test
  void coreExceptionsBecomeStatusesNamingTheField() {
    assertThatThrownBy(() -> TestService.check(channel, "bad"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).isEqualTo("value must not be bad");
              assertThat(StatusMapper.violatedField(e)).isEqualTo("value");
            });
  }

  @Test
  void unexpectedFailuresReachTheClientAsAnErrorIdWithoutExceptionText() {
    for (String failure : List.of("boom", "on-error")) {
      assertThatThrownBy(() -> TestService.check(channel, failure))
          .as(failure)
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
                assertThat(e.getStatus().getDescription())
                    .matches("internal error, id [0-9a-f]{16}");
                assertThat(e.getStatus().getDescription())
                    .doesNotContain("secret")
                    .doesNotContain("Exception");
                com.google.rpc.Status details = StatusProto.fromThrowable(e);
                assertThat(details.toString()).doesNotContain("secret").doesNotContain("Exception");
                assertThat(details.getDetailsList())
                    .filteredOn(any -> any.is(RequestInfo.class))
                    .extracting(any -> unpack(any).getRequestId())
                    .containsExactly(
                        e.getStatus().getDescription().substring("internal error, id ".length()));
              });
    }
  }

  @Test
  void aHundredThousandCharacterValueInAnErrorArrivesCut() {
    assertThatThrownBy(() -> TestService.check(channel, "long:100000"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              String message = e.getStatus().getDescription();
              assertThat(message).startsWith("no collection 'xxx").contains("\u2026(100002 chars)");
              assertThat(message.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(1000);
              assertThat(StatusMapper.violatedField(e)).isEqualTo("name");
            });
    assertThatThrownBy(() -> TestService.check(channel, "long-field:100000"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(StatusMapper.violatedField(e))
                  .startsWith("fff")
                  .endsWith("\u2026(100000 chars)")
                  .hasSizeLessThan(300);
            });
  }

  @Test
  void statusesBuiltByHandByAHandlerAreCutToo() {
    assertThatThrownBy(() -> TestService.check(channel, "hand-long:100000"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
              assertThat(e.getStatus().getDescription())
                  .startsWith("missing yyy")
                  .endsWith("\u2026(100000 chars)");
            });
  }

  @Test
  void overloadedCoresAnswerResourceExhaustedWithTheirRetryDelay() {
    assertThatThrownBy(() -> TestService.check(channel, "busy"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
              assertThat(e.getStatus().getDescription()).isEqualTo("queue full");
              assertThat(StatusMapper.retryDelay(e)).contains(Duration.ofMillis(250));
            });
  }

  @Test
  void messagesOverTheSizeCapAreRejected() {
    assertThatThrownBy(() -> TestService.check(channel, "x".repeat(10_000)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }

  @Test
  void callsRunOnTheNamedHandlerPool() {
    TestService.check(channel, "ok");
    assertThat(service.lastThread()).startsWith("grpc-handler-");
  }

  @Test
  void admittedCallsGoFromTheTransportThreadStraightToAHandlerThread() throws Exception {
    for (int i = 0; i < 20; i++) {
      TestService.check(channel, "ok");
      assertThat(service.lastThread()).startsWith("grpc-handler-");
    }
    // Method lookup ran on the transport thread: the admission pool never saw these calls.
    assertThat(host.admission().admissionTasksRun()).isZero();

    // Health checks (like refusals, see BoundedServingTest) still run on the admission pool.
    HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance());
    TransportSecurityTest.awaitSuccess(
        () -> assertThat(host.admission().admissionTasksRun()).isPositive());
  }

  @Test
  void closingTurnsHealthToNotServingAndRefusesNewCalls() {
    host.close();
    assertThatThrownBy(() -> TestService.check(channel, "ok"))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void settingsRejectOutOfRangeValues() {
    assertThatThrownBy(() -> new ServerSettings("h", 70000, -1, 4096, Duration.ZERO))
        .hasMessageContaining("--port");
    assertThatThrownBy(() -> new ServerSettings("h", 0, -1, 10, Duration.ZERO))
        .hasMessageContaining("--max-message-bytes");
    assertThatThrownBy(() -> ServingLimits.of(0, -1, 0))
        .hasMessageContaining("--max-concurrent-calls");
  }

  static String scrape(GrpcServerHost host) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + host.metricsPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static RequestInfo unpack(Any any) {
    try {
      return any.unpack(RequestInfo.class);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  private static <T> StreamObserver<T> completing(CompletableFuture<T> first) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        first.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        first.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {}
    };
  }
}
