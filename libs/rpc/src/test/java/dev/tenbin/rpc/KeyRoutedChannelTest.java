package dev.tenbin.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Empty;
import com.google.protobuf.StringValue;
import dev.tenbin.rpc.testing.TestService;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A key-routed channel sends each call to the node its key lives on, read from the first message;
 * keyless calls take the nodes in turn; a call cancelled before its first message reaches no node.
 */
class KeyRoutedChannelTest {
  private static final List<String> NODES = List.of("node-0:1", "node-1:1", "node-2:1");

  private final String prefix = "routed-" + UUID.randomUUID() + "-";
  private final List<Server> servers = new ArrayList<>();
  private final Map<String, List<String>> served = new ConcurrentHashMap<>();
  private KeyRoutedChannel channel;

  @BeforeEach
  void startOneServerPerNode() throws Exception {
    for (String node : NODES) {
      List<String> values = new CopyOnWriteArrayList<>();
      served.put(node, values);
      servers.add(
          InProcessServerBuilder.forName(prefix + node)
              .directExecutor()
              .addService(
                  ServerInterceptors.intercept(
                      new TestService(),
                      new io.grpc.ServerInterceptor() {
                        @Override
                        public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(
                            io.grpc.ServerCall<Q, R> call,
                            Metadata headers,
                            io.grpc.ServerCallHandler<Q, R> next) {
                          return new io.grpc.ForwardingServerCallListener
                              .SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                            @Override
                            public void onMessage(Q message) {
                              values.add(((StringValue) message).getValue());
                              super.onMessage(message);
                            }
                          };
                        }
                      }))
              .build()
              .start());
    }
    channel =
        KeyRoutedChannel.open(
            NODES,
            node -> InProcessChannelBuilder.forName(prefix + node).directExecutor().build(),
            message -> {
              String value = ((StringValue) message).getValue();
              return value.startsWith("key-") ? value : null;
            });
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow();
    assertThat(channel.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    assertThat(channel.isShutdown()).isTrue();
    servers.forEach(Server::shutdownNow);
  }

  @Test
  void everyCallReachesTheNodeItsKeyLivesOn() {
    for (int i = 0; i < 60; i++) {
      TestService.check(channel, "key-" + i);
      TestService.check(channel, "key-" + i);
    }
    for (String node : NODES) {
      assertThat(served.get(node)).isNotEmpty();
      assertThat(served.get(node)).allMatch(key -> channel.nodeOf(key).equals(node));
    }
    assertThat(served.values().stream().mapToInt(List::size).sum()).isEqualTo(120);
  }

  @Test
  void callsWithoutAKeyTakeTheNodesInTurn() {
    for (int i = 0; i < 6; i++) {
      TestService.check(channel, "no key");
    }
    assertThat(served.values()).allSatisfy(values -> assertThat(values).hasSize(2));
  }

  @Test
  void aCallCancelledBeforeItsFirstMessageClosesCancelledAndReachesNoNode() {
    ClientCall<StringValue, Empty> call =
        channel.newCall(
            TestService.CHECK, CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS));
    AtomicReference<Status> closed = new AtomicReference<>();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.set(status);
          }
        },
        new Metadata());
    call.request(1);
    assertThat(call.isReady()).as("the first message picks the node").isTrue();
    call.cancel("changed my mind", null);
    assertThat(closed.get().getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(closed.get().getDescription()).isEqualTo("changed my mind");
    assertThat(served.values()).allSatisfy(values -> assertThat(values).isEmpty());
  }

  @Test
  void aNodeThatCannotBeOpenedClosesTheOnesAlreadyOpen() {
    List<ManagedChannel> opened = new ArrayList<>();
    try {
      KeyRoutedChannel.open(
          NODES,
          node -> {
            if (node.equals("node-2:1")) {
              throw new IllegalArgumentException("unreadable CA file");
            }
            ManagedChannel c = InProcessChannelBuilder.forName(prefix + node).build();
            opened.add(c);
            return c;
          },
          message -> null);
    } catch (IllegalArgumentException expected) {
      assertThat(expected).hasMessage("unreadable CA file");
    }
    assertThat(opened).hasSize(2).allMatch(ManagedChannel::isShutdown);
  }
}
