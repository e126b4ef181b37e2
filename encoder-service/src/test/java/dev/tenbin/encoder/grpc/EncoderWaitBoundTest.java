package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.StatusMapper;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The encoder's bound on waiting ({@code --max-queue-wait-seconds}, here 1 s) covers every wait
 * from a call's arrival to the start of its work, the wait for a handler thread included: with one
 * handler thread busy 2 s with a slow call (its lone input waits 2 s in the queue for company), a
 * call arriving meanwhile is refused with RESOURCE_EXHAUSTED and a retry delay when it reaches the
 * thread, instead of being admitted after waiting twice the bound.
 */
class EncoderWaitBoundTest {
  @TempDir Path tmp;
  private EncoderCore core;
  private GrpcServerHost host;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
            .withBatching(
                new BatchingLimits(
                    1_000_000, 256, 100, Duration.ofMillis(2_000), Duration.ofSeconds(1)));
    core = new EncoderCore(config);
    String name = "encoder-wait-" + UUID.randomUUID();
    host =
        GrpcServerHost.startInProcess(
            name, new SimpleMeterRegistry(), EncoderServer.services(core), 1);
    channel = InProcessChannelBuilder.forName(name).build();
    core.preload(List.of("tiny-dense"));
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    host.close();
    core.close();
  }

  private EncoderServiceGrpc.EncoderServiceBlockingStub stub() {
    return EncoderServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private static EncodeDenseRequest request(String text) {
    return EncodeDenseRequest.newBuilder()
        .setModelId("tiny-dense")
        .addTexts(text)
        .setRole(InputRole.INPUT_ROLE_DOCUMENT)
        .build();
  }

  /** Status of a call and how long it took, from the caller's side. */
  private record Outcome(Status.Code code, Duration took, Duration retryAfter) {}

  private Outcome call(Runnable call) {
    long start = System.nanoTime();
    try {
      call.run();
      return new Outcome(Status.Code.OK, Duration.ofNanos(System.nanoTime() - start), null);
    } catch (StatusRuntimeException e) {
      return new Outcome(
          e.getStatus().getCode(),
          Duration.ofNanos(System.nanoTime() - start),
          StatusMapper.retryDelay(e).orElse(null));
    }
  }

  @Test
  void aCallThatWaitedPastTheBoundForAHandlerThreadIsRefusedWithARetryDelay() throws Exception {
    CompletableFuture<Outcome> slow =
        CompletableFuture.supplyAsync(() -> call(() -> stub().encodeDense(request("apple"))));
    Thread.sleep(300); // the slow call holds the only handler thread
    Outcome waiting = call(() -> stub().encodeDense(request("banana")));

    assertThat(waiting.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(waiting.retryAfter()).isNotNull().isPositive();
    // Refused when it reached the thread (about 1.7 s), not served after a second queue wait.
    assertThat(waiting.took()).isLessThan(Duration.ofMillis(3_000));
    assertThat(slow.get(30, TimeUnit.SECONDS).code()).isEqualTo(Status.Code.OK);
    // Once the thread is free, a call is served again.
    assertThat(call(() -> stub().encodeDense(request("cherry"))).code()).isEqualTo(Status.Code.OK);
  }

  @Test
  void aStreamedEncodeCountsItsWaitForAThreadToo() throws Exception {
    CompletableFuture<Outcome> slow =
        CompletableFuture.supplyAsync(() -> call(() -> stub().encodeDense(request("apple"))));
    Thread.sleep(300);
    Outcome waiting =
        call(
            () ->
                stub()
                    .streamEncodeDense(
                        StreamEncodeDenseRequest.newBuilder().setRequest(request("banana")).build())
                    .forEachRemaining(response -> {}));

    assertThat(waiting.code()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(waiting.retryAfter()).isNotNull();
    assertThat(slow.get(30, TimeUnit.SECONDS).code()).isEqualTo(Status.Code.OK);
  }
}
