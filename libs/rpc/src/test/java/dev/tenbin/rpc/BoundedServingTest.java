package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Empty;
import com.google.protobuf.StringValue;
import dev.tenbin.rpc.testing.TestService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The admission limit over the fixed handler pool. */
class BoundedServingTest {
  @Test
  void callsBeyondTheLimitAreRefusedAtOnceWithRetryInfoAndServingRecovers() throws Exception {
    TestService service = new TestService();
    // One handler thread, two calls admitted: the first blocks the only thread, the second waits
    // for it in the queue; the third must be refused without any handler thread to run on.
    ServingLimits limits = ServingLimits.of(1, 2, 0);
    try (GrpcServerHost host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, 0, 1 << 20, Duration.ofSeconds(1))
                .withLimits(limits),
            List.of(service))) {
      ManagedChannel channel =
          ClientChannels.open("127.0.0.1", host.port(), ClientSecurity.plaintext(), 1 << 20);
      try {
        Future<Empty> first = block(channel);
        Future<Empty> second = block(channel);
        awaitActive(host, 2);
        // Admission counts a call before its handler runs: wait for the first to hold the thread.
        TransportSecurityTest.awaitSuccess(() -> assertThat(service.blocked()).isEqualTo(1));

        assertThatThrownBy(() -> TestService.check(channel, "ok"))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> {
                  assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                  assertThat(e.getStatus().getDescription()).contains("--max-concurrent-calls");
                  assertThat(StatusMapper.retryDelay(e))
                      .contains(ServingLimits.DEFAULT_RETRY_AFTER);
                });
        // Health checks are neither counted nor stuck behind the busy handler thread.
        assertThat(
                HealthGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance())
                    .getStatus())
            .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        assertThat(service.blocked()).isEqualTo(1);

        service.release();
        first.get(20, TimeUnit.SECONDS);
        second.get(20, TimeUnit.SECONDS);
        TestService.check(channel, "ok");
        awaitActive(host, 0);
        assertThat(GrpcServerHostTest.scrape(host)).contains("tenbin_rpc_calls_refused_total 1.0");
      } finally {
        service.release();
        channel.shutdownNow();
      }
    }
  }

  private static Future<Empty> block(ManagedChannel channel) {
    return ClientCalls.futureUnaryCall(
        channel.newCall(
            TestService.CHECK, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)),
        StringValue.of("block"));
  }

  private static void awaitActive(GrpcServerHost host, int calls) throws InterruptedException {
    TransportSecurityTest.awaitSuccess(
        () ->
            assertThat(host.registry().get("tenbin.rpc.calls.active").gauge().value())
                .isEqualTo(calls));
  }
}
