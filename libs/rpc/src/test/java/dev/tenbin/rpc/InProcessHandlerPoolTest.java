package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Empty;
import com.google.protobuf.StringValue;
import dev.tenbin.rpc.testing.TestService;
import io.grpc.BindableService;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The fixed handler pool of in-process servers: bounded, nested calls complete, closed with it. */
class InProcessHandlerPoolTest {

  @Test
  void nestedCallsBetweenInProcessHostsCompleteUnderMoreConcurrencyThanThreads() throws Exception {
    // Three hosts of two threads each, as eval -> rerank -> encoder: every outer call holds a
    // thread of its host while it waits for the next host; 24 at once must all finish.
    String inner = "inner-" + UUID.randomUUID();
    String middle = "middle-" + UUID.randomUUID();
    String outer = "outer-" + UUID.randomUUID();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    List<AutoCloseable> opened = new ArrayList<>();
    try {
      opened.add(host(inner, new TestService()));
      ManagedChannel toInner = InProcessChannelBuilder.forName(inner).build();
      opened.add(toInner::shutdownNow);
      opened.add(host(middle, new Relay(toInner, threads)));
      ManagedChannel toMiddle = InProcessChannelBuilder.forName(middle).build();
      opened.add(toMiddle::shutdownNow);
      opened.add(host(outer, new Relay(toMiddle, threads)));
      ManagedChannel toOuter = InProcessChannelBuilder.forName(outer).build();
      opened.add(toOuter::shutdownNow);

      ExecutorService callers = Executors.newFixedThreadPool(24);
      opened.add(callers::shutdownNow);
      List<Future<?>> calls = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        calls.add(callers.submit(() -> TestService.check(toOuter, "ok")));
      }
      for (Future<?> call : calls) {
        call.get(60, TimeUnit.SECONDS); // hang guard
      }
      assertThat(threads)
          .as("relays ran on their hosts' two named handler threads each")
          .allSatisfy(name -> assertThat(name).matches("(outer|middle)-.*-handler-[12]"))
          .hasSizeBetween(2, 4);
    } finally {
      for (AutoCloseable resource : opened.reversed()) {
        resource.close();
      }
    }
  }

  @Test
  void callsBeyondThePoolWaitForAThreadAndThePoolStopsWithTheHost() throws Exception {
    String name = "pool-" + UUID.randomUUID();
    TestService service = new TestService();
    GrpcServerHost host =
        GrpcServerHost.startInProcess(name, new SimpleMeterRegistry(), List.of(service), 2);
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    ExecutorService callers = Executors.newFixedThreadPool(5);
    try {
      List<Future<?>> blocked = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        blocked.add(callers.submit(() -> TestService.check(channel, "block")));
      }
      TransportSecurityTest.awaitSuccess(() -> assertThat(service.blocked()).isEqualTo(2));
      Thread.sleep(200); // the three others stay queued: there is no third thread
      assertThat(service.blocked()).isEqualTo(2);
      assertThat(handlerThreads(name)).hasSize(2).allMatch(Thread::isAlive);

      service.release();
      for (Future<?> call : blocked) {
        call.get(30, TimeUnit.SECONDS);
      }
      assertThat(service.lastThread()).startsWith(name + "-handler-");
      List<Thread> threads = handlerThreads(name);

      host.close();
      for (Thread thread : threads) {
        thread.join(10_000); // hang guard
      }
      assertThat(threads).noneMatch(Thread::isAlive);
      assertThat(handlerThreads(name)).isEmpty();
    } finally {
      service.release();
      callers.shutdownNow();
      channel.shutdownNow();
      host.close();
    }
  }

  private static GrpcServerHost host(String name, BindableService service) {
    return GrpcServerHost.startInProcess(name, new SimpleMeterRegistry(), List.of(service), 2);
  }

  private static List<Thread> handlerThreads(String host) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.getName().startsWith(host + "-handler-"))
        .toList();
  }

  /** Answers {@code Check} by making the same call to the next host and waiting for it. */
  private static final class Relay implements BindableService {
    private final Channel next;
    private final Set<String> threads;

    Relay(Channel next, Set<String> threads) {
      this.next = next;
      this.threads = threads;
    }

    @Override
    public ServerServiceDefinition bindService() {
      return ServerServiceDefinition.builder(TestService.NAME)
          .addMethod(TestService.CHECK, ServerCalls.asyncUnaryCall(this::relay))
          .build();
    }

    private void relay(StringValue request, StreamObserver<Empty> responses) {
      threads.add(Thread.currentThread().getName());
      TestService.check(next, request.getValue());
      responses.onNext(Empty.getDefaultInstance());
      responses.onCompleted();
    }
  }
}
