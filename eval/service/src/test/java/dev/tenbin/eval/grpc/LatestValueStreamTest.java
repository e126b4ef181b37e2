package dev.tenbin.eval.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.proto.eval.v1.EvalServiceGrpc;
import dev.tenbin.proto.eval.v1.Job;
import dev.tenbin.proto.eval.v1.JobState;
import dev.tenbin.proto.eval.v1.WatchJobRequest;
import dev.tenbin.proto.eval.v1.WatchJobResponse;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A watch stream under flow control: a reader that asks for one state while the job produces a
 * thousand makes the server send one, hold only the newest, and send that (the last) when the
 * reader asks again.
 */
class LatestValueStreamTest {
  private static final int UPDATES = 1_000;
  private final AtomicInteger sent = new AtomicInteger();
  private final CountDownLatch go = new CountDownLatch(1);
  private final CountDownLatch produced = new CountDownLatch(1);
  private Server server;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  private static WatchJobResponse state(int done, JobState state) {
    return WatchJobResponse.newBuilder()
        .setJob(Job.newBuilder().setId("j").setCellsDone(done).setState(state))
        .build();
  }

  /**
   * A watch that offers a queued state at once, then (when the test says go) {@link #UPDATES}
   * running states and the finished one, as fast as it can.
   */
  private final class FastJob extends EvalServiceGrpc.EvalServiceImplBase {
    @Override
    public void watchJob(WatchJobRequest request, StreamObserver<WatchJobResponse> response) {
      var stream =
          new LatestValueStream<>(
              (ServerCallStreamObserver<WatchJobResponse>) response,
              update -> update.getJob().getState() == JobState.JOB_STATE_SUCCEEDED);
      stream.offer(state(0, JobState.JOB_STATE_QUEUED));
      Thread.ofPlatform()
          .start(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 1; i <= UPDATES; i++) {
                  stream.offer(state(i, JobState.JOB_STATE_RUNNING));
                }
                stream.offer(state(UPDATES, JobState.JOB_STATE_SUCCEEDED));
                produced.countDown();
              });
    }
  }

  /** Counts the messages the service hands to the transport. */
  private final class CountingSends implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(R message) {
              sent.incrementAndGet();
              super.sendMessage(message);
            }
          },
          headers);
    }
  }

  @Test
  void aReaderThatAsksForOneStateGetsOneAndThenTheNewestInsteadOfABacklog() throws Exception {
    String name = "latest-value-" + UUID.randomUUID();
    server =
        InProcessServerBuilder.forName(name)
            .addService(ServerInterceptors.intercept(new FastJob(), new CountingSends()))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
    List<WatchJobResponse> received = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<ClientCallStreamObserver<WatchJobRequest>> call = new CompletableFuture<>();
    EvalServiceGrpc.newStub(channel)
        .watchJob(
            WatchJobRequest.newBuilder().setJobId("j").build(),
            new ClientResponseObserver<WatchJobRequest, WatchJobResponse>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<WatchJobRequest> requestStream) {
                requestStream.disableAutoRequestWithInitial(1);
                call.complete(requestStream);
              }

              @Override
              public void onNext(WatchJobResponse value) {
                received.add(value);
              }

              @Override
              public void onError(Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {
                done.complete(null);
              }
            });

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (received.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(received)
        .extracting(r -> r.getJob().getState())
        .containsExactly(JobState.JOB_STATE_QUEUED);
    go.countDown();
    assertThat(produced.await(30, TimeUnit.SECONDS)).isTrue();
    // The reader asked for one state and got it: every later one was held back, none was sent.
    assertThat(sent.get()).isEqualTo(1);
    assertThat(done).isNotDone();

    call.get().request(UPDATES);
    done.get(30, TimeUnit.SECONDS);
    // Only the newest state was waiting: the finished one, which ends the stream.
    assertThat(received).hasSize(2);
    assertThat(received.getLast().getJob().getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
    assertThat(received.getLast().getJob().getCellsDone()).isEqualTo(UPDATES);
    assertThat(sent.get()).isEqualTo(received.size());
  }
}
