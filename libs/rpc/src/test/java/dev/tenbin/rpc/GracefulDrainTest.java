package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A graceful stop (SIGTERM of a rolling update) hands every open call back with UNAVAILABLE and a
 * retry delay, which clients retry, instead of cutting it off at the end of the grace period
 * (CANCELLED, which they do not): a stream at once at its message boundary, a unary call still
 * running half-way through the grace; health says NOT_SERVING at once; new calls are refused with
 * UNAVAILABLE.
 */
class GracefulDrainTest {
  private static final Duration GRACE = Duration.ofSeconds(4);

  private final TestService service = new TestService();

  /** Threads of their own: the common pool may have one thread only, held by a blocked call. */
  private final java.util.concurrent.ExecutorService threads =
      java.util.concurrent.Executors.newCachedThreadPool();

  private GrpcServerHost host;
  private ManagedChannel channel;
  private CompletableFuture<Void> closing;

  @BeforeEach
  void start() {
    host =
        GrpcServerHost.start(new ServerSettings("127.0.0.1", 0, 0, 4096, GRACE), List.of(service));
    channel = ClientChannels.open("127.0.0.1", host.port(), ClientSecurity.plaintext(), 1 << 20);
  }

  @AfterEach
  void stop() throws Exception {
    service.release();
    if (closing != null) {
      closing.get(30, TimeUnit.SECONDS);
    }
    channel.shutdownNow();
    host.close();
    threads.shutdownNow();
  }

  /** Starts the graceful stop on another thread, as the signal handler does; returns its start. */
  private long beginStop() {
    long start = System.nanoTime();
    closing = CompletableFuture.runAsync(host::close, threads);
    return start;
  }

  private static void assertHandedBack(Status status, Throwable failure) {
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(StatusMapper.retryDelay(failure)).isPresent();
    assertThat(status.getDescription()).contains("shutting down");
  }

  @Test
  void anOpenRequestStreamIsHandedBackAtOnceWithUnavailableAndARetryDelay() throws Exception {
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    StreamObserver<StringValue> requests =
        ClientCalls.asyncClientStreamingCall(
            channel.newCall(
                TestService.COLLECT, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
            new StreamObserver<Empty>() {
              @Override
              public void onNext(Empty value) {}

              @Override
              public void onError(Throwable t) {
                events.add(t);
              }

              @Override
              public void onCompleted() {
                events.add(Status.OK);
              }
            });
    requests.onNext(StringValue.of("first"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (service.collected() < 1 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(service.collected()).isEqualTo(1);

    long start = beginStop();
    Object end = events.poll(10, TimeUnit.SECONDS);

    assertThat(end).isInstanceOf(StatusRuntimeException.class);
    StatusRuntimeException failure = (StatusRuntimeException) end;
    assertHandedBack(failure.getStatus(), failure);
    // Early in the grace, not at its end.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GRACE.dividedBy(2));
    // What the client sends after the hand-back is not applied.
    requests.onNext(StringValue.of("after"));
    Thread.sleep(200);
    assertThat(service.collected()).isEqualTo(1);
  }

  @Test
  void aUnaryCallStillRunningHalfWayThroughTheGraceIsHandedBackUnavailableNotCancelled()
      throws Exception {
    CompletableFuture<StatusRuntimeException> blocked =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                TestService.check(channel, "block");
                return null;
              } catch (StatusRuntimeException e) {
                return e;
              }
            },
            threads);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (service.blocked() < 1 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }

    long start = beginStop();
    StatusRuntimeException failure = blocked.get(20, TimeUnit.SECONDS);

    assertThat(failure).isNotNull();
    assertHandedBack(failure.getStatus(), failure);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isGreaterThanOrEqualTo(GRACE.dividedBy(2).minusMillis(100));
    assertThat(took).isLessThan(GRACE);
  }

  @Test
  void aStoppingServerSaysNotServingAtOnceAndRefusesNewCallsWithUnavailable() throws Exception {
    // A health watcher (a load balancer) and a call keeping the server draining.
    BlockingQueue<HealthCheckResponse.ServingStatus> health = new LinkedBlockingQueue<>();
    HealthGrpc.newStub(channel)
        .watch(
            HealthCheckRequest.newBuilder().setService(TestService.NAME).build(),
            new StreamObserver<>() {
              @Override
              public void onNext(HealthCheckResponse value) {
                health.add(value.getStatus());
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    assertThat(health.poll(10, TimeUnit.SECONDS))
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    CompletableFuture.runAsync(
        () -> {
          try {
            TestService.check(channel, "block");
          } catch (StatusRuntimeException expected) {
            // handed back half-way through the grace
          }
        },
        threads);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (service.blocked() < 1 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }

    long start = beginStop();

    assertThat(health.poll(1, TimeUnit.SECONDS))
        .isEqualTo(HealthCheckResponse.ServingStatus.NOT_SERVING);
    Thread.sleep(100);
    Status refused;
    try {
      TestService.check(channel, "ok");
      refused = Status.OK;
    } catch (StatusRuntimeException e) {
      refused = e.getStatus();
    }
    assertThat(refused.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GRACE.dividedBy(2));
  }
}
