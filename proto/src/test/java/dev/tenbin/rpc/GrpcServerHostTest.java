package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Empty;
import com.google.protobuf.StringValue;
import dev.tenbin.core.InvalidInputException;
import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GrpcServerHostTest {
  private static final MethodDescriptor<StringValue, Empty> ECHO =
      MethodDescriptor.<StringValue, Empty>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("tenbin.test.v1.TestService/Check")
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .build();

  /** A service whose one method rejects the value "bad" the way a core does. */
  private static final BindableService TEST_SERVICE =
      () ->
          ServerServiceDefinition.builder("tenbin.test.v1.TestService")
              .addMethod(
                  ECHO,
                  ServerCalls.asyncUnaryCall(
                      (StringValue request, StreamObserver<Empty> responses) -> {
                        if (request.getValue().equals("bad")) {
                          throw new InvalidInputException("value", "value must not be bad");
                        }
                        responses.onNext(Empty.getDefaultInstance());
                        responses.onCompleted();
                      }))
              .build();

  private static GrpcServerHost start() {
    return GrpcServerHost.start(
        new ServerSettings("127.0.0.1", 0, 0, 4096, Duration.ofSeconds(2)), List.of(TEST_SERVICE));
  }

  private static ManagedChannel channel(GrpcServerHost host) {
    return NettyChannelBuilder.forAddress("127.0.0.1", host.port()).usePlaintext().build();
  }

  @Test
  void servesHealthReflectionAndPrometheusMetricsPerRpc() throws Exception {
    try (GrpcServerHost host = start()) {
      ManagedChannel channel = channel(host);
      try {
        ClientCalls.blockingUnaryCall(
            channel, ECHO, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
            StringValue.of("ok"));
        assertThat(
                HealthGrpc.newBlockingStub(channel)
                    .check(HealthCheckRequest.newBuilder().setService("tenbin.test.v1.TestService").build())
                    .getStatus())
            .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

        CompletableFuture<ServerReflectionResponse> listed = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> reflection =
            ServerReflectionGrpc.newStub(channel)
                .serverReflectionInfo(
                    new StreamObserver<>() {
                      @Override
                      public void onNext(ServerReflectionResponse value) {
                        listed.complete(value);
                      }

                      @Override
                      public void onError(Throwable t) {
                        listed.completeExceptionally(t);
                      }

                      @Override
                      public void onCompleted() {}
                    });
        reflection.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        reflection.onCompleted();
        assertThat(listed.get(5, TimeUnit.SECONDS).getListServicesResponse().getServiceList())
            .extracting(s -> s.getName())
            // Services generated from .proto files are listed too (see the services' own tests);
            // this hand-built test service has no file descriptor to list.
            .contains("grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");

        String metrics =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + host.metricsPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics).contains("grpc_server_processing_duration_seconds_count").contains("method=\"Check\"");
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void coreExceptionsBecomeStatusesNamingTheField() {
    try (GrpcServerHost host = start()) {
      ManagedChannel channel = channel(host);
      try {
        assertThatThrownBy(
                () ->
                    ClientCalls.blockingUnaryCall(
                        channel, ECHO, io.grpc.CallOptions.DEFAULT, StringValue.of("bad")))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                  assertThat(e.getStatus().getDescription()).isEqualTo("value must not be bad");
                  assertThat(StatusMapper.violatedField(e)).isEqualTo("value");
                });
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void messagesOverTheSizeCapAreRejected() {
    try (GrpcServerHost host = start()) {
      ManagedChannel channel = channel(host);
      try {
        assertThatThrownBy(
                () ->
                    ClientCalls.blockingUnaryCall(
                        channel, ECHO, io.grpc.CallOptions.DEFAULT, StringValue.of("x".repeat(10_000))))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void closingTurnsHealthToNotServingAndRefusesNewCalls() {
    GrpcServerHost host = start();
    ManagedChannel channel = channel(host);
    try {
      host.close();
      assertThatThrownBy(
              () -> ClientCalls.blockingUnaryCall(channel, ECHO, io.grpc.CallOptions.DEFAULT, StringValue.of("ok")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void settingsRejectOutOfRangeValues() {
    assertThatThrownBy(() -> new ServerSettings("h", 70000, -1, 4096, Duration.ZERO))
        .hasMessageContaining("--port");
    assertThatThrownBy(() -> new ServerSettings("h", 0, -1, 10, Duration.ZERO))
        .hasMessageContaining("--max-message-bytes");
  }
}
