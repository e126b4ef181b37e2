package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Empty;
import com.google.protobuf.StringValue;
import dev.tenbin.rpc.testing.TestService;
import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The embedded (in-process) servers run calls on a bounded pool of their own. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InProcessHostTest {
  private static final int THREADS = GrpcServerHost.IN_PROCESS_HANDLER_THREADS;

  private final List<AutoCloseable> opened = new ArrayList<>();
  private final ExecutorService callers = Executors.newCachedThreadPool();

  @AfterEach
  void closeAll() throws Exception {
    callers.shutdownNow();
    for (AutoCloseable resource : opened.reversed()) {
      resource.close();
    }
  }

  @Test
  void callsBeyondThePoolWaitForAThreadInsteadOfFailing() throws Exception {
    TestService service = new TestService();
    ManagedChannel channel = start("bounded", service);
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (int i = 0; i < THREADS + 8; i++) {
      calls.add(CompletableFuture.runAsync(() -> TestService.check(channel, "block"), callers));
    }
    while (service.blocked() < THREADS) {
      Thread.sleep(5);
    }
    // Every handler thread is taken; the 8 calls beyond them are queued, not running.
    Thread.sleep(200);
    assertThat(service.blocked()).isEqualTo(THREADS);
    assertThat(calls).noneMatch(CompletableFuture::isDone);

    service.release();
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertThat(service.lastThread()).startsWith("tenbin-inprocess-bounded-");
  }

  @Test
  void aHandlerCallingAnotherEmbeddedServiceCompletesWhenEveryThreadIsBusy() throws Exception {
    TestService inner = new TestService();
    ManagedChannel innerChannel = start("inner", inner);
    ManagedChannel outerChannel = start("outer", new Forwarding(innerChannel));
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (int i = 0; i < 3 * THREADS; i++) {
      calls.add(CompletableFuture.runAsync(() -> forward(outerChannel, "ok"), callers));
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertThat(inner.lastThread()).startsWith("tenbin-inprocess-inner-");
  }

  @Test
  void closingTheHostStopsItsHandlerThreads() throws Exception {
    TestService service = new TestService();
    ManagedChannel channel = start("closing", service);
    TestService.check(channel, "ok");
    assertThat(liveThreads("tenbin-inprocess-closing-")).isPositive();

    for (AutoCloseable resource : opened.reversed()) {
      resource.close();
    }
    opened.clear();
    assertThat(liveThreads("tenbin-inprocess-closing-")).isZero();
  }

  private ManagedChannel start(String name, BindableService service) {
    GrpcServerHost host =
        GrpcServerHost.startInProcess(name, new SimpleMeterRegistry(), List.of(service));
    opened.add(host);
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    opened.add(() -> channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
    return channel;
  }

  private static long liveThreads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.getName().startsWith(prefix) && thread.isAlive())
        .count();
  }

  private static final MethodDescriptor<StringValue, Empty> FORWARD =
      TestService.CHECK.toBuilder().setFullMethodName("tenbin.test.v1.Forwarding/Forward").build();

  private static void forward(ManagedChannel channel, String value) {
    ClientCalls.blockingUnaryCall(
        channel,
        FORWARD,
        CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
        StringValue.of(value));
  }

  /** A service whose handler calls another embedded service and waits for it. */
  private record Forwarding(ManagedChannel next) implements BindableService {
    @Override
    public ServerServiceDefinition bindService() {
      return ServerServiceDefinition.builder("tenbin.test.v1.Forwarding")
          .addMethod(
              FORWARD,
              ServerCalls.asyncUnaryCall(
                  (request, responses) -> {
                    TestService.check(next, request.getValue());
                    responses.onNext(Empty.getDefaultInstance());
                    responses.onCompleted();
                  }))
          .build();
    }
  }
}
