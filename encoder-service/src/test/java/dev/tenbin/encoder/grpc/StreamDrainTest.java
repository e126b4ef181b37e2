package dev.tenbin.encoder.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseResponse;
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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The encoder's streamed encode under a graceful stop (SIGTERM of a rolling update): the stream is
 * handed back with UNAVAILABLE and a retry delay after its next chunk, early in the grace period,
 * not cut off with CANCELLED at its end; the client resumes it on the restarted service from the
 * first text without a vector, and gets the vectors one uninterrupted stream gives.
 */
class StreamDrainTest {
  private static final int TEXTS = 24;

  @TempDir Path tmp;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private EncoderCore core;
  private String name;
  private GrpcServerHost host;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    // Each one-text chunk waits 250 ms in the queue for company: a stream of 24 takes 6 s, longer
    // than the in-process grace period (5 s).
    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
            .withBatching(new BatchingLimits(1_000_000, 256, 100, Duration.ofMillis(250)));
    core = new EncoderCore(config);
    core.preload(List.of("tiny-dense"));
    name = "encoder-drain-" + UUID.randomUUID();
    host = startHost();
    channel = InProcessChannelBuilder.forName(name).build();
  }

  private GrpcServerHost startHost() {
    return GrpcServerHost.startInProcess(
        name, new SimpleMeterRegistry(), EncoderServer.services(core), 4);
  }

  @AfterEach
  void stop() {
    threads.shutdownNow();
    channel.shutdownNow();
    host.close();
    core.close();
  }

  private static List<String> texts() {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < TEXTS; i++) {
      texts.add("text number " + i + " about apples");
    }
    return texts;
  }

  /** Waits until {@code count} reaches {@code at}. */
  private static void await(java.util.function.IntSupplier count, int at) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (count.getAsInt() < at) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  @Test
  void aStopHandsAStreamedEncodeBackAfterItsNextChunkWithUnavailable() throws Exception {
    List<StreamEncodeDenseResponse> chunks = new CopyOnWriteArrayList<>();
    CompletableFuture<StatusRuntimeException> stream =
        CompletableFuture.supplyAsync(
            () -> {
              Iterator<StreamEncodeDenseResponse> responses =
                  EncoderServiceGrpc.newBlockingStub(channel)
                      .withDeadlineAfter(30, TimeUnit.SECONDS)
                      .streamEncodeDense(
                          StreamEncodeDenseRequest.newBuilder()
                              .setRequest(
                                  EncodeDenseRequest.newBuilder()
                                      .setModelId("tiny-dense")
                                      .addAllTexts(texts())
                                      .setRole(InputRole.INPUT_ROLE_DOCUMENT))
                              .setChunkSize(1)
                              .build());
              try {
                responses.forEachRemaining(chunks::add);
                return null;
              } catch (StatusRuntimeException e) {
                return e;
              }
            },
            threads);
    await(chunks::size, 3);

    long start = System.nanoTime();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(host::close, threads);
    StatusRuntimeException end = stream.get(30, TimeUnit.SECONDS);

    assertThat(end).isNotNull();
    assertThat(end.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(StatusMapper.retryDelay(end)).isPresent();
    // Handed back after a chunk or two, within a second, not at the grace's end (5 s in-process).
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1_500));
    assertThat(chunks.size()).isBetween(3, TEXTS - 1);
    closing.get(30, TimeUnit.SECONDS);
  }

  @Test
  void theClientResumesAStreamHandedBackOnTheRestartedServiceFromItsNextText() throws Exception {
    List<Integer> progress = new CopyOnWriteArrayList<>();
    CompletableFuture<List<float[]>> encoded =
        CompletableFuture.supplyAsync(
            () ->
                EncoderClient.of(channel)
                    .streamEncodeDense("tiny-dense", texts(), false, 1, progress::add),
            threads);
    await(progress::size, 4);

    // A rolling update: the service stops gracefully and comes back under the same address.
    host.close();
    host = startHost();
    List<float[]> vectors = encoded.get(60, TimeUnit.SECONDS);

    assertThat(progress).isSorted().doesNotHaveDuplicates().endsWith(TEXTS);
    assertThat(vectors).hasSize(TEXTS);
    for (int i = 0; i < TEXTS; i++) {
      float[] alone =
          core.encodeDense("tiny-dense", List.of(texts().get(i)), false, 0, Cancellation.NEVER)
              .vectors()
              .getFirst();
      assertThat(vectors.get(i)).as("text %d", i).containsExactly(alone);
    }
  }
}
