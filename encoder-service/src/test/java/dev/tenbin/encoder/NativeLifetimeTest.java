package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.EncoderServiceGrpc;
import dev.tenbin.proto.encoder.v1.InputRole;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.testing.models.TinyModels;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native lifetime under concurrency: cancelling, closing and shutting down while passes run. Every
 * call must end OK, CANCELLED or UNAVAILABLE, and the JVM must stay alive (a native use after free
 * would crash it). Each test repeats its round {@code -Dtenbin.stress=N} times (default 2).
 */
class NativeLifetimeTest {
  private static final int ROUNDS = Integer.getInteger("tenbin.stress", 2);

  /** Small passes, so that a request of many inputs runs as many passes. */
  private static final BatchingLimits SMALL_PASSES =
      new BatchingLimits(64, 8, 100_000, Duration.ZERO);

  @TempDir Path tmp;
  Path models;

  @BeforeEach
  void models() throws Exception {
    models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.multiVector(models, "tiny-colbert");
  }

  private EncoderCore core(BatchingLimits limits) {
    return new EncoderCore(
        EncoderServiceConfig.embedded(models, tmp.resolve("cache")).withBatching(limits));
  }

  private static List<String> texts(int count, long seed) {
    Random random = new Random(seed);
    List<String> texts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      StringBuilder text = new StringBuilder();
      for (int w = 1 + random.nextInt(20); w > 0; w--) {
        text.append(TinyModels.WORDS.get(random.nextInt(TinyModels.WORDS.size()))).append(' ');
      }
      texts.add(text.toString().trim());
    }
    return texts;
  }

  /** How calls ended, by kind; anything but OK, CANCELLED and UNAVAILABLE is a failure. */
  private static final class Outcomes {
    final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    final List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger begun = new AtomicInteger();

    void run(Runnable call) {
      begun.incrementAndGet();
      try {
        call.run();
        count("OK");
      } catch (CancelledException e) {
        count("CANCELLED");
      } catch (UnavailableException e) {
        count("UNAVAILABLE");
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.CANCELLED || code == Status.Code.UNAVAILABLE) {
          count(code.name());
        } else {
          unexpected.add(e);
        }
      } catch (RuntimeException | Error e) {
        unexpected.add(e);
      }
    }

    void count(String outcome) {
      counts.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
    }

    /** Waits (up to 20 s) until {@code calls} calls have begun, so that closing meets them. */
    void awaitBegun(int calls) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (begun.get() < calls) {
        assertThat(System.nanoTime()).as("%d calls begun", calls).isLessThan(deadline);
        Thread.sleep(1);
      }
    }

    int total() {
      return counts.values().stream().mapToInt(AtomicInteger::get).sum();
    }
  }

  /** Runs {@code workers} threads calling {@code call} until stopped or refused; returns them. */
  private static List<Thread> load(
      int workers, Outcomes outcomes, AtomicBoolean stop, Supplier<Runnable> call) {
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      threads.add(
          Thread.ofPlatform()
              .name("load-" + w)
              .start(
                  () -> {
                    while (!stop.get()) {
                      int before =
                          outcomes.counts.getOrDefault("UNAVAILABLE", new AtomicInteger()).get();
                      outcomes.run(call.get());
                      if (outcomes.counts.getOrDefault("UNAVAILABLE", new AtomicInteger()).get()
                          > before) {
                        return; // the service is gone
                      }
                    }
                  }));
    }
    return threads;
  }

  private static void joinAll(List<Thread> threads) throws InterruptedException {
    for (Thread thread : threads) {
      thread.join(30_000);
      assertThat(thread.isAlive()).as("%s ended", thread.getName()).isFalse();
    }
  }

  @Test
  void cancellingDuringEncodingEndsEachCallOkOrCancelledAndTheModelKeepsServing() throws Exception {
    try (EncoderCore core = core(SMALL_PASSES)) {
      List<String> texts = texts(400, 1);
      for (int round = 0; round < ROUNDS; round++) {
        Outcomes outcomes = new Outcomes();
        AtomicBoolean cancelled = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          threads.add(
              Thread.ofPlatform()
                  .start(
                      () ->
                          outcomes.run(
                              () ->
                                  core.encodeDense(
                                      "tiny-dense", texts, false, 0, cancelled::get))));
        }
        Thread.sleep(round % 5);
        cancelled.set(true);
        joinAll(threads);
        assertThat(outcomes.unexpected).isEmpty();
        assertThat(outcomes.total()).isEqualTo(4);
        assertThat(
                core.encodeDense("tiny-dense", texts(3, round), false, 0, Cancellation.NEVER)
                    .vectors())
            .hasSize(3);
      }
    }
  }

  @Test
  void cancellingCallsOverGrpcEndsThemCancelledWhileOthersComplete() throws Exception {
    String name = "lifetime-" + UUID.randomUUID();
    try (EncoderServer.Embedded server =
        EncoderServer.startInProcess(
            name,
            EncoderServiceConfig.embedded(models, tmp.resolve("cache")).withBatching(SMALL_PASSES),
            new SimpleMeterRegistry())) {
      ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
      try {
        EncoderServiceGrpc.EncoderServiceBlockingStub stub =
            EncoderServiceGrpc.newBlockingStub(channel);
        EncodeDenseRequest request =
            EncodeDenseRequest.newBuilder()
                .setModelId("tiny-dense")
                .addAllTexts(texts(400, 2))
                .setRole(InputRole.INPUT_ROLE_DOCUMENT)
                .build();
        StreamEncodeDenseRequest stream =
            StreamEncodeDenseRequest.newBuilder()
                .setRequest(
                    EncodeDenseRequest.newBuilder()
                        .setModelId("tiny-dense")
                        .addAllTexts(texts(400, 3))
                        .setRole(InputRole.INPUT_ROLE_DOCUMENT))
                .setChunkSize(16)
                .build();
        for (int round = 0; round < ROUNDS; round++) {
          Outcomes outcomes = new Outcomes();
          List<Context.CancellableContext> contexts =
              Collections.synchronizedList(new ArrayList<>());
          List<Thread> threads = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            boolean streaming = t % 2 == 1;
            Context.CancellableContext context = Context.current().withCancellation();
            contexts.add(context);
            threads.add(
                Thread.ofPlatform()
                    .start(
                        () ->
                            outcomes.run(
                                () ->
                                    context.run(
                                        () -> {
                                          if (streaming) {
                                            stub.streamEncodeDense(stream)
                                                .forEachRemaining(chunk -> {});
                                          } else {
                                            stub.encodeDense(request);
                                          }
                                        }))));
          }
          // One call is left to finish; the others are cancelled mid-way.
          Thread.sleep(1 + round % 5);
          contexts.subList(1, contexts.size()).forEach(context -> context.cancel(null));
          joinAll(threads);
          assertThat(outcomes.unexpected).isEmpty();
          assertThat(outcomes.total()).isEqualTo(4);
          assertThat(outcomes.counts.keySet()).isSubsetOf("OK", "CANCELLED");
          assertThat(stub.encodeDense(request).getVectorsCount()).isEqualTo(400);
        }
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void closingTheCoreDuringConcurrentEncodesEndsEveryCallOkOrUnavailable() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      EncoderCore core = core(SMALL_PASSES);
      List<String> texts = texts(200, round);
      core.encodeDense("tiny-dense", texts.subList(0, 2), false, 0, Cancellation.NEVER);
      Outcomes outcomes = new Outcomes();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads =
          load(
              3,
              outcomes,
              stop,
              () -> () -> core.encodeDense("tiny-dense", texts, false, 0, Cancellation.NEVER));
      threads.addAll(
          load(
              1,
              outcomes,
              stop,
              () -> () -> core.encodeMultiVector("tiny-colbert", texts, true, Cancellation.NEVER)));
      outcomes.awaitBegun(threads.size());
      Thread.sleep(5 + round % 11);
      core.close();
      stop.set(true);
      joinAll(threads);
      assertThat(outcomes.unexpected).isEmpty();
      assertThat(outcomes.counts).containsKey("UNAVAILABLE");
      assertThat(outcomes.counts.keySet()).isSubsetOf("OK", "UNAVAILABLE");
      assertThat(Thread.getAllStackTraces().keySet())
          .noneMatch(t -> t.getName().startsWith("batcher-tiny-") && t.isAlive());
    }
  }

  @Test
  void closingTheCoreWhileABuiltInModelEncodesWaitsForItsPassAndEndsCallsCleanly()
      throws Exception {
    EncoderCore core = new EncoderCore(EncoderServiceConfig.embedded(models, tmp.resolve("cache")));
    List<String> texts = new ArrayList<>();
    for (String text : texts(300, 9)) {
      texts.add(text + " " + text + " " + text);
    }
    core.encodeDense("all-minilm-l6-v2", texts.subList(0, 2), false, 0, Cancellation.NEVER);
    Outcomes outcomes = new Outcomes();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads =
        load(
            3,
            outcomes,
            stop,
            () -> () -> core.encodeDense("all-minilm-l6-v2", texts, false, 0, Cancellation.NEVER));
    outcomes.awaitBegun(threads.size());
    Thread.sleep(300);
    core.close();
    stop.set(true);
    joinAll(threads);
    assertThat(outcomes.unexpected).isEmpty();
    assertThat(outcomes.counts).containsKey("UNAVAILABLE");
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().startsWith("batcher-all-minilm") && t.isAlive());
  }

  @Test
  void shuttingTheServerDownUnderLoadEndsEveryCallOkCancelledOrUnavailable() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      String name = "lifetime-shutdown-" + UUID.randomUUID();
      EncoderServer.Embedded server =
          EncoderServer.startInProcess(
              name,
              EncoderServiceConfig.embedded(models, tmp.resolve("cache"))
                  .withBatching(SMALL_PASSES),
              new SimpleMeterRegistry());
      ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
      EncoderServiceGrpc.EncoderServiceBlockingStub stub =
          EncoderServiceGrpc.newBlockingStub(channel);
      EncodeDenseRequest request =
          EncodeDenseRequest.newBuilder()
              .setModelId("tiny-dense")
              .addAllTexts(texts(200, round))
              .setRole(InputRole.INPUT_ROLE_DOCUMENT)
              .build();
      stub.encodeDense(request);
      Outcomes outcomes = new Outcomes();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = load(4, outcomes, stop, () -> () -> stub.encodeDense(request));
      outcomes.awaitBegun(threads.size());
      Thread.sleep(5 + round % 13);
      server.close();
      stop.set(true);
      joinAll(threads);
      channel.shutdownNow();
      assertThat(outcomes.unexpected).isEmpty();
      assertThat(outcomes.total()).isPositive();
    }
  }
}
