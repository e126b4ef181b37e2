package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.light.LightQueryEncoder;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseResponse;
import dev.tenbin.rpc.ExceptionMappingInterceptor;
import dev.tenbin.testing.models.TinyModels;
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
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming encode under flow control: a reader that asks for a few chunks gets that many encoded
 * and sent, however many texts remain; the rest are encoded as it asks for them, in order.
 */
class StreamFlowControlTest {
  private static final int TEXTS = 40;
  @TempDir Path tmp;
  private final AtomicInteger sent = new AtomicInteger();
  private EncoderServer.Embedded core;
  private Server server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    core =
        EncoderServer.startInProcess(
            "encoder-core-" + UUID.randomUUID(),
            EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache")),
            new SimpleMeterRegistry());
    String name = "encoder-flow-" + UUID.randomUUID();
    var service =
        new EncoderGrpcService(
            core.core(), new LightQueryEncoder(core.core(), tmp.resolve("cache")));
    server =
        InProcessServerBuilder.forName(name)
            .addService(
                ServerInterceptors.intercept(
                    service, new ExceptionMappingInterceptor(), new CountingSends()))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    core.close();
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

  private static void awaitAtLeast(IntSupplier count, int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (count.getAsInt() < expected && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(count.getAsInt()).isGreaterThanOrEqualTo(expected);
  }

  @Test
  void aReaderThatDoesNotAskForMoreHoldsTheServerAtTheChunksItAskedFor() throws Exception {
    List<Integer> offsets = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<ClientCallStreamObserver<StreamEncodeDenseRequest>> call =
        new CompletableFuture<>();
    StreamEncodeDenseRequest request =
        StreamEncodeDenseRequest.newBuilder()
            .setRequest(
                EncodeDenseRequest.newBuilder()
                    .setModelId("tiny-dense")
                    .addAllTexts(
                        IntStream.range(0, TEXTS)
                            .mapToObj(i -> TinyModels.WORDS.get(i % TinyModels.WORDS.size()))
                            .toList())
                    .setRole(InputRole.INPUT_ROLE_DOCUMENT))
            .setChunkSize(1)
            .build();
    EncoderServiceGrpc.newStub(channel)
        .streamEncodeDense(
            request,
            new ClientResponseObserver<StreamEncodeDenseRequest, StreamEncodeDenseResponse>() {
              @Override
              public void beforeStart(
                  ClientCallStreamObserver<StreamEncodeDenseRequest> requestStream) {
                requestStream.disableAutoRequestWithInitial(2);
                call.complete(requestStream);
              }

              @Override
              public void onNext(StreamEncodeDenseResponse chunk) {
                offsets.add(chunk.getOffset());
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

    awaitAtLeast(offsets::size, 2);
    // A server that ignored readiness would have encoded and queued all 40 chunks by now.
    Thread.sleep(300);
    assertThat(sent.get()).isEqualTo(2);
    assertThat(done).isNotDone();

    call.get().request(3);
    awaitAtLeast(offsets::size, 5);
    Thread.sleep(300);
    assertThat(sent.get()).isEqualTo(5);

    call.get().request(TEXTS);
    done.get(30, TimeUnit.SECONDS);
    assertThat(offsets).containsExactlyElementsOf(IntStream.range(0, TEXTS).boxed().toList());
    assertThat(sent.get()).isEqualTo(TEXTS);
  }
}
