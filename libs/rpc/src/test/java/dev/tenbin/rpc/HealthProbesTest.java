package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.rpc.testing.TestService;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plaintext probes on the metrics port follow the server's health: {@code /livez} while it
 * runs, {@code /readyz} only while it says SERVING, whatever the gRPC port's TLS and tokens.
 */
class HealthProbesTest {
  private static final ServerSettings SETTINGS =
      new ServerSettings("127.0.0.1", 0, 0, 1 << 20, Duration.ofSeconds(1));

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static HealthCheckResponse.ServingStatus grpcHealth(GrpcServerHost host) {
    ManagedChannel channel =
        ClientChannels.open("127.0.0.1", host.port(), ClientSecurity.plaintext(), 1 << 20);
    try {
      return HealthGrpc.newBlockingStub(channel)
          .check(HealthCheckRequest.getDefaultInstance())
          .getStatus();
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void aServerStartedNotServingIsLiveButNotReadyUntilItSaysSo() throws Exception {
    try (GrpcServerHost host = GrpcServerHost.start(SETTINGS, List.of(new TestService()), false)) {
      int port = host.metricsPort();
      assertThat(get(port, "/livez").statusCode()).isEqualTo(200);
      assertThat(get(port, "/readyz").statusCode()).isEqualTo(503);
      assertThat(get(port, "/readyz").body()).isEqualTo("not serving\n");
      assertThat(grpcHealth(host)).isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);

      host.markServing();

      assertThat(get(port, "/readyz").statusCode()).isEqualTo(200);
      assertThat(grpcHealth(host)).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
      assertThat(get(port, "/metrics").body()).contains("grpc_server");
    }
  }

  @Test
  void theEndpointIsNotReadyBeforeItsServerSaysWhatReadyMeans() throws Exception {
    // The metrics endpoint binds before the gRPC port does: a probe in between must not pass.
    try (MetricsHttpServer endpoint =
        MetricsHttpServer.start(
            "127.0.0.1",
            0,
            new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT))) {
      assertThat(get(endpoint.port(), "/readyz").statusCode()).isEqualTo(503);
      assertThat(get(endpoint.port(), "/livez").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aServerStartedServingIsReadyAtOnceAndNoLongerOnceClosing() throws Exception {
    GrpcServerHost host = GrpcServerHost.start(SETTINGS, List.of(new TestService()));
    int port = host.metricsPort();
    assertThat(get(port, "/readyz").statusCode()).isEqualTo(200);
    assertThat(host.isServing()).isTrue();
    host.close();
    assertThat(host.isServing()).isFalse();
  }
}
