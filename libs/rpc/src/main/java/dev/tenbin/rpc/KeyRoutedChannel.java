package dev.tenbin.rpc;

import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One channel over the replicas of a stateful service, each holding its own keys (the index's
 * StatefulSet pods, each holding its own collections): a call goes to the node its key lives on by
 * {@link Rendezvous} placement, so every call about one key (create, ingest, search, drop) reaches
 * the same node. The key is read from the call's first request message by {@code keyOf}; a call
 * whose message has none (a stateless RPC) goes to the nodes in turn.
 *
 * <p>The channel owns one channel per node and shuts them all down with itself. A call is started
 * on its node when its first message is sent (or, for a call sending none, when it half-closes), in
 * the {@link Context} that was current when the call was created.
 */
public final class KeyRoutedChannel extends ManagedChannel {
  private final Rendezvous placement;
  private final Map<String, ManagedChannel> channels;
  private final Function<Object, Route> routeOf;
  private final AtomicInteger turn = new AtomicInteger();

  /**
   * Where a call goes: the node of rank {@code rank} in {@code key}'s rendezvous ranking (rank 0:
   * the key's own node; the shards of one collection take ranks 0, 1, 2, ... so that they spread
   * over as many nodes as there are, each shard always on the same one).
   */
  public record Route(String key, int rank) {
    public Route {
      if (rank < 0) {
        throw new IllegalArgumentException("a rank is not negative, got " + rank);
      }
    }
  }

  private KeyRoutedChannel(
      Rendezvous placement, Map<String, ManagedChannel> channels, Function<Object, Route> routeOf) {
    this.placement = placement;
    this.channels = channels;
    this.routeOf = routeOf;
  }

  /**
   * Opens a channel to each of {@code nodes} with {@code open} (closing those already open if one
   * fails) and routes calls over them.
   *
   * @param nodes the nodes' stable names ({@code host:port} of each pod), each placed by name
   * @param open opens the channel of a node
   * @param keyOf the key of a request message, or null when the call has none
   */
  public static KeyRoutedChannel open(
      List<String> nodes, Function<String, ManagedChannel> open, Function<Object, String> keyOf) {
    return openRouted(
        nodes,
        open,
        message -> {
          String key = keyOf.apply(message);
          return key == null || key.isEmpty() ? null : new Route(key, 0);
        });
  }

  /**
   * As {@link #open}, each call sent where {@code routeOf} places it ({@link Route}); a message it
   * gives no route goes to the nodes in turn.
   */
  public static KeyRoutedChannel openRouted(
      List<String> nodes, Function<String, ManagedChannel> open, Function<Object, Route> routeOf) {
    Rendezvous placement = new Rendezvous(nodes);
    Map<String, ManagedChannel> channels = new LinkedHashMap<>();
    try {
      for (String node : placement.nodes()) {
        channels.put(node, open.apply(node));
      }
    } catch (RuntimeException failure) {
      channels.values().forEach(ManagedChannel::shutdownNow);
      throw failure;
    }
    return new KeyRoutedChannel(placement, channels, routeOf);
  }

  /** The placement calls follow. */
  public Rendezvous placement() {
    return placement;
  }

  /** The node {@code key} lives on. */
  public String nodeOf(String key) {
    return placement.nodeOf(key);
  }

  private ManagedChannel channelFor(Object firstMessage) {
    Route route = firstMessage == null ? null : routeOf.apply(firstMessage);
    if (route == null) {
      List<ManagedChannel> all = new ArrayList<>(channels.values());
      return all.get(Math.floorMod(turn.getAndIncrement(), all.size()));
    }
    return channels.get(placement.nodeOf(route.key(), route.rank()));
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
    return new RoutedCall<>(method, callOptions, Context.current());
  }

  @Override
  public String authority() {
    return channels.values().iterator().next().authority();
  }

  @Override
  public ManagedChannel shutdown() {
    channels.values().forEach(ManagedChannel::shutdown);
    return this;
  }

  @Override
  public ManagedChannel shutdownNow() {
    channels.values().forEach(ManagedChannel::shutdownNow);
    return this;
  }

  @Override
  public boolean isShutdown() {
    return channels.values().stream().allMatch(ManagedChannel::isShutdown);
  }

  @Override
  public boolean isTerminated() {
    return channels.values().stream().allMatch(ManagedChannel::isTerminated);
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long until = System.nanoTime() + unit.toNanos(timeout);
    for (ManagedChannel channel : channels.values()) {
      long left = until - System.nanoTime();
      if (!channel.awaitTermination(Math.max(0, left), TimeUnit.NANOSECONDS)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void resetConnectBackoff() {
    channels.values().forEach(ManagedChannel::resetConnectBackoff);
  }

  @Override
  public void enterIdle() {
    channels.values().forEach(ManagedChannel::enterIdle);
  }

  /**
   * A call that waits for its first message to know its node: what the caller does before (start,
   * request, compression) is replayed on the node's call, everything after is passed through.
   */
  private final class RoutedCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    private final MethodDescriptor<ReqT, RespT> method;
    private final CallOptions callOptions;
    private final Context context;
    private Listener<RespT> listener;
    private Metadata headers;
    private int requested;
    private Boolean compression;
    private boolean cancelled;
    private volatile ClientCall<ReqT, RespT> delegate;

    RoutedCall(MethodDescriptor<ReqT, RespT> method, CallOptions callOptions, Context context) {
      this.method = method;
      this.callOptions = callOptions;
      this.context = context;
    }

    @Override
    public synchronized void start(Listener<RespT> responseListener, Metadata requestHeaders) {
      if (listener != null) {
        throw new IllegalStateException("the call was already started");
      }
      listener = responseListener;
      headers = requestHeaders;
    }

    @Override
    public void request(int numMessages) {
      synchronized (this) {
        if (delegate == null) {
          requested += numMessages;
          return;
        }
      }
      delegate.request(numMessages);
    }

    @Override
    public void sendMessage(ReqT message) {
      routed(message).sendMessage(message);
    }

    @Override
    public void halfClose() {
      routed(null).halfClose();
    }

    @Override
    public void cancel(String message, Throwable cause) {
      Listener<RespT> toClose;
      synchronized (this) {
        if (delegate == null) {
          if (cancelled) {
            return;
          }
          cancelled = true;
          toClose = listener;
        } else {
          toClose = null;
        }
      }
      if (delegate != null) {
        delegate.cancel(message, cause);
      } else if (toClose != null) {
        Status status = Status.CANCELLED;
        status = message != null ? status.withDescription(message) : status;
        toClose.onClose(cause != null ? status.withCause(cause) : status, new Metadata());
      }
    }

    @Override
    public boolean isReady() {
      ClientCall<ReqT, RespT> call = delegate;
      // Before the first message the call can take one: sending it picks the node.
      return call == null ? !cancelled : call.isReady();
    }

    @Override
    public synchronized void setMessageCompression(boolean enabled) {
      if (delegate == null) {
        compression = enabled;
      } else {
        delegate.setMessageCompression(enabled);
      }
    }

    @Override
    public Attributes getAttributes() {
      ClientCall<ReqT, RespT> call = delegate;
      return call == null ? Attributes.EMPTY : call.getAttributes();
    }

    /** The node's call, started now if this is the first message. */
    private synchronized ClientCall<ReqT, RespT> routed(Object firstMessage) {
      if (delegate != null) {
        return delegate;
      }
      if (listener == null) {
        throw new IllegalStateException("the call was not started");
      }
      if (cancelled) {
        throw new IllegalStateException("the call was cancelled");
      }
      ManagedChannel channel = channelFor(firstMessage);
      Context previous = context.attach();
      try {
        ClientCall<ReqT, RespT> call = channel.newCall(method, callOptions);
        call.start(listener, headers);
        if (requested > 0) {
          call.request(requested);
        }
        if (compression != null) {
          call.setMessageCompression(compression);
        }
        delegate = call;
        return call;
      } finally {
        context.detach(previous);
      }
    }
  }
}
