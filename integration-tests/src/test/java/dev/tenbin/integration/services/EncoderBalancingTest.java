package dev.tenbin.integration.services;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.rpc.ServingLimits;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.rpc.LoopbackResolver;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real encoder servers (Netty on loopback, the tiny dense model) behind one name, reached the
 * way a client reaches a headless Service ({@code dns:///} in a cluster, a test resolver here):
 * round_robin shares the calls, a stopped server stops getting them, and a server that ages its
 * connections out makes the client resolve again and find a replica added since.
 */
class EncoderBalancingTest {
  @TempDir Path tmp;

  private final List<AutoCloseable> started = new ArrayList<>();
  private Path models;

  @BeforeEach
  void writeTheModel() throws Exception {
    models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
  }

  @AfterEach
  void stopEverything() throws Exception {
    for (AutoCloseable resource : started.reversed()) {
      resource.close();
    }
  }

  /** A real encoder server counting the EncodeDense calls it served, stopped after the test. */
  private EncoderReplica replica(String name, ServingLimits limits) {
    EncoderReplica replica = new EncoderReplica(models, tmp.resolve(name + "-cache"), limits);
    started.add(replica);
    return replica;
  }

  private ManagedChannel balancedChannel(LoopbackResolver resolver) {
    ManagedChannel channel = EncoderReplica.balancedChannel(resolver);
    started.add(
        () -> {
          channel.shutdownNow();
          channel.awaitTermination(5, TimeUnit.SECONDS);
        });
    return channel;
  }

  /** The orchestrator's and rerank service's client, without retries: every failure counts. */
  private static EncoderClient client(ManagedChannel channel) {
    return new EncoderClient(channel, new CallPolicy(Duration.ofSeconds(20), 1));
  }

  private static void encode(EncoderClient client, int i) {
    List<float[]> vectors =
        client.encodeDense("tiny-dense", List.of("apples and pears " + i), false, 0);
    assertThat(vectors).hasSize(1);
  }

  @Test
  void twoServersBehindOneNameShareTheCallsAndAStoppedOneStopsGettingThem() throws Exception {
    EncoderReplica a = replica("a", ServingLimits.defaults());
    EncoderReplica b = replica("b", ServingLimits.defaults());
    try (LoopbackResolver resolver = new LoopbackResolver(List.of(a.port(), b.port()))) {
      EncoderClient client = client(balancedChannel(resolver));
      encode(client, -1); // connects; round_robin connects to every address at once
      a.served.set(0);
      b.served.set(0);
      for (int i = 0; i < 40; i++) {
        encode(client, i);
      }
      System.out.printf(
          "round_robin over two encoders, 40 calls: a served %d, b served %d%n",
          a.served.get(), b.served.get());
      assertThat(a.served.get() + b.served.get()).isEqualTo(40);
      assertThat(a.served.get()).as("a's share").isBetween(15, 25);
      assertThat(b.served.get()).as("b's share").isBetween(15, 25);

      // Calls keep coming from another thread while a stops (the name still lists it, as DNS does
      // for a moment after a pod is gone): only a call in flight on a may fail.
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger succeeded = new AtomicInteger();
      List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
      Thread caller =
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; !stop.get(); i++) {
                      try {
                        encode(client, 1000 + i);
                        succeeded.incrementAndGet();
                      } catch (StatusRuntimeException e) {
                        failures.add(e);
                      }
                    }
                  });
      await(() -> succeeded.get() >= 20);
      int resolutionsBefore = resolver.resolutions();
      a.close();
      int servedByAAtItsStop = a.served.get();
      int servedByBAtAsStop = b.served.get();
      int succeededAtAsStop = succeeded.get();
      await(() -> succeeded.get() >= succeededAtAsStop + 40);
      stop.set(true);
      caller.join(20_000);
      System.out.printf(
          "a stopped after serving %d; then %d calls succeeded, b served %d of them, %d failed %s;"
              + " name resolved %d more times%n",
          servedByAAtItsStop,
          succeeded.get() - succeededAtAsStop,
          b.served.get() - servedByBAtAsStop,
          failures.size(),
          failures,
          resolver.resolutions() - resolutionsBefore);
      assertThat(failures)
          .as("at most the one call in flight on a when it stopped")
          .hasSizeLessThanOrEqualTo(1);
      assertThat(a.served.get())
          .as("nothing reaches a stopped server")
          .isEqualTo(servedByAAtItsStop);
      assertThat(b.served.get() - servedByBAtAsStop)
          .as("every call since, but one a finished while it stopped, was b's")
          .isGreaterThanOrEqualTo(succeeded.get() - succeededAtAsStop - 1);
      assertThat(resolver.resolutions())
          .as("losing a connection makes the channel resolve the name again")
          .isGreaterThan(resolutionsBefore);
    }
  }

  @Test
  void aReplicaAddedBehindTheNameGetsCallsOnceTheServerAgesConnectionsOut() throws Exception {
    ServingLimits agedEachSecond =
        ServingLimits.defaults().withMaxConnectionAge(Duration.ofSeconds(1), Duration.ofSeconds(5));
    EncoderReplica a = replica("a", agedEachSecond);
    EncoderReplica b = replica("b", agedEachSecond);
    try (LoopbackResolver resolver = new LoopbackResolver(List.of(a.port()))) {
      EncoderClient client = client(balancedChannel(resolver));
      for (int i = 0; i < 5; i++) {
        encode(client, i);
      }
      assertThat(b.served.get()).as("b is not behind the name yet").isZero();

      resolver.resolveTo(List.of(a.port(), b.port())); // a pod was added: DNS lists it now
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      int calls = 0;
      while (b.served.get() == 0 && System.nanoTime() < until) {
        encode(client, 100 + calls++);
        Thread.sleep(20);
      }
      System.out.printf(
          "replica added: b got its first call after %d calls (a served %d), %d resolutions%n",
          calls, a.served.get(), resolver.resolutions());
      assertThat(b.served.get())
          .as("a's GOAWAY after 1 s made the client resolve again and connect to b")
          .isPositive();
    }
  }

  private static void await(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 30 s").isLessThan(until);
      Thread.sleep(5);
    }
  }
}
