package dev.tenbin.client.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.client.CallPolicy;
import dev.tenbin.client.TestServers;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.HostPort;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.testing.rpc.LoopbackResolver;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link EncoderClient} over a channel from {@link ClientChannels} to two loopback servers behind
 * one name (a headless Service's DNS name in a cluster, a test resolver here): round_robin spreads
 * the calls, and a call one replica hands back is retried on the other.
 */
class EncoderClientBalancingTest {
  private static ManagedChannel balanced(LoopbackResolver resolver) {
    return ClientChannels.open(
        new ServiceTarget(resolver.scheme(), new HostPort("tenbin-encoder-headless", 50051)),
        ClientSecurity.plaintext(),
        ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
  }

  private static float encode(EncoderClient client) {
    List<float[]> vectors = client.encodeDense("m", List.of("text"), false, 0);
    assertThat(vectors).hasSize(1);
    return vectors.getFirst()[0];
  }

  @Test
  void roundRobinSpreadsTheCallsOverBothServers() throws Exception {
    CountingEncoder a = new CountingEncoder(1, false);
    CountingEncoder b = new CountingEncoder(2, false);
    Server serverA = TestServers.loopback(a);
    Server serverB = TestServers.loopback(b);
    try (LoopbackResolver resolver =
        new LoopbackResolver(List.of(serverA.getPort(), serverB.getPort()))) {
      ManagedChannel channel = balanced(resolver);
      try {
        EncoderClient client =
            new EncoderClient(channel, new CallPolicy(Duration.ofSeconds(10), 1));
        encode(client); // connects; round_robin connects to every address
        waitUntilBothAreReady(client, a, b);
        a.calls.set(0);
        b.calls.set(0);
        for (int i = 0; i < 40; i++) {
          encode(client);
        }
        assertThat(a.calls.get() + b.calls.get()).isEqualTo(40);
        assertThat(a.calls.get()).as("a's share of 40").isBetween(15, 25);
        assertThat(b.calls.get()).as("b's share of 40").isBetween(15, 25);
      } finally {
        TestServers.stop(channel);
      }
    } finally {
      TestServers.stop(serverA);
      TestServers.stop(serverB);
    }
  }

  @Test
  void aCallHandedBackByOneReplicaIsRetriedOnTheOther() throws Exception {
    CountingEncoder stopping = new CountingEncoder(1, true);
    CountingEncoder serving = new CountingEncoder(2, false);
    Server serverA = TestServers.loopback(stopping);
    Server serverB = TestServers.loopback(serving);
    try (LoopbackResolver resolver =
        new LoopbackResolver(List.of(serverA.getPort(), serverB.getPort()))) {
      ManagedChannel channel = balanced(resolver);
      try {
        EncoderClient client =
            new EncoderClient(channel, new CallPolicy(Duration.ofSeconds(10), 2));
        waitUntilBothAreReady(client, stopping, serving);
        stopping.calls.set(0);
        serving.calls.set(0);
        for (int i = 0; i < 8; i++) {
          assertThat(encode(client))
              .as("call " + i + " answered by the serving replica")
              .isEqualTo(2);
        }
        assertThat(serving.calls).hasValue(8);
        assertThat(stopping.calls.get())
            .as("round_robin alternates: each call's first pick is the stopping replica or not")
            .isBetween(1, 8);
      } finally {
        TestServers.stop(channel);
      }
    } finally {
      TestServers.stop(serverA);
      TestServers.stop(serverB);
    }
  }

  /** Calls until both servers have had one, so round_robin has both connections ready. */
  private static void waitUntilBothAreReady(
      EncoderClient client, CountingEncoder a, CountingEncoder b) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (a.calls.get() == 0 || b.calls.get() == 0) {
      assertThat(System.nanoTime()).as("both servers reached within 10 s").isLessThan(until);
      try {
        encode(client);
      } catch (RuntimeException e) {
        // the stopping replica's refusal; what counts is that it was reached
      }
      Thread.sleep(5);
    }
  }
}
