package dev.tenbin.rpc;

import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.CompositeChannelCredentials;
import io.grpc.ConnectivityState;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.util.AdvancedTlsX509TrustManager;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The one way Tenbin opens a channel to a Tenbin server (the CLI, the orchestrator's remote
 * services, the rerank service's encoder), following a {@link ClientSecurity}: plaintext, or TLS
 * with hostname verification against a CA file or the system's CAs, optionally a client certificate
 * (mutual TLS, reloaded from disk when it changes), and optionally a bearer token on every call
 * ({@link BearerTokenCredentials}). Channels send keepalive pings while calls are open, so a dead
 * server is noticed. A {@link ServiceTarget} decides the rest: a direct {@code host:port} gets one
 * connection, a {@code dns:///host:port} target one connection per address the name resolves to and
 * {@code round_robin} over them.
 *
 * <p>The Java {@code EncoderClient} takes any {@link io.grpc.Channel}: give it one from here, e.g.
 * {@code EncoderClient.of(ClientChannels.open(ServiceTarget.parse("--encoder-endpoint",
 * "dns:///tenbin-encoder-headless:50051"), ClientSecurity.trusting(ca).withTokenFile(token),
 * ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES))}: calls spread over every encoder pod.
 */
public final class ClientChannels {
  /** Largest response accepted unless told otherwise (encodings of big batches are large). */
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_BYTES = 256 * 1024 * 1024;

  private static final Duration RELOAD_INTERVAL = Duration.ofMinutes(1);

  private ClientChannels() {}

  /** A channel to {@code host:port}; {@link IllegalArgumentException} for unreadable files. */
  public static ManagedChannel open(
      String host, int port, ClientSecurity security, int maxInboundMessageBytes) {
    return open(ServiceTarget.direct(host, port), security, maxInboundMessageBytes);
  }

  /**
   * A channel to {@code endpoint} with its security: to its one target, or, for the pods of a
   * stateful service, a {@link KeyRoutedChannel} sending each call to the pod its key lives on.
   * Every client of those pods that is given the same pod names in any order ({@link
   * ServiceEndpoint#toString()}: {@code host:port} each) places a key on the same pod.
   *
   * @param keyOf the key of a call's first request message, or null for a call with none; unused
   *     for one target
   */
  public static ManagedChannel open(
      ServiceEndpoint endpoint,
      int maxInboundMessageBytes,
      java.util.function.Function<Object, String> keyOf) {
    return endpoint.placed()
        ? openPods(endpoint, maxInboundMessageBytes, keyOf)
        : open(endpoint.target(), endpoint.security(), maxInboundMessageBytes);
  }

  /**
   * A channel per target of {@code pods}, each call sent to the pod its key lives on ({@link
   * Rendezvous} placement over the pods' names, {@code host:port} each).
   */
  public static KeyRoutedChannel openPods(
      ServiceEndpoint pods,
      int maxInboundMessageBytes,
      java.util.function.Function<Object, String> keyOf) {
    return openRoutedPods(
        pods,
        maxInboundMessageBytes,
        message -> {
          String key = keyOf.apply(message);
          return key == null || key.isEmpty() ? null : new KeyRoutedChannel.Route(key, 0);
        });
  }

  /** As {@link #openPods}, each call placed by {@code routeOf} ({@link KeyRoutedChannel.Route}). */
  public static KeyRoutedChannel openRoutedPods(
      ServiceEndpoint pods,
      int maxInboundMessageBytes,
      java.util.function.Function<Object, KeyRoutedChannel.Route> routeOf) {
    java.util.Map<String, ServiceTarget> byName = new java.util.LinkedHashMap<>();
    for (ServiceTarget pod : pods.targets()) {
      byName.put(pod.toString(), pod);
    }
    return KeyRoutedChannel.openRouted(
        java.util.List.copyOf(byName.keySet()),
        name -> open(byName.get(name), pods.security(), maxInboundMessageBytes),
        routeOf);
  }

  /**
   * A channel to {@code target}, direct or balanced over the addresses its name resolves to; {@link
   * IllegalArgumentException} for unreadable files.
   */
  public static ManagedChannel open(
      ServiceTarget target, ClientSecurity security, int maxInboundMessageBytes) {
    TlsFiles files = null;
    ChannelCredentials credentials;
    if (security.tls()) {
      TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
      if (security.caFile() != null || security.clientCert() != null) {
        files =
            TlsFiles.open(
                security.clientCert(),
                security.clientKey(),
                security.caFile(),
                new TlsFiles.Labels("client certificate", "client key", "TLS CA file"),
                AdvancedTlsX509TrustManager.Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION,
                RELOAD_INTERVAL,
                Reloads.SCHEDULER);
        if (files.keyManager() != null) {
          tls.keyManager(files.keyManager());
        }
        if (files.trustManager() != null) {
          tls.trustManager(files.trustManager());
        }
      }
      credentials = tls.build();
    } else {
      credentials = InsecureChannelCredentials.create();
    }
    try {
      if (security.tokenFile() != null) {
        credentials =
            CompositeChannelCredentials.create(
                credentials, new BearerTokenCredentials(security.tokenFile()));
      }
      HostPort address = target.address();
      NettyChannelBuilder builder =
          target.balanced()
              ? NettyChannelBuilder.forTarget(target.channelTarget(), credentials)
                  .defaultLoadBalancingPolicy(ServiceTarget.BALANCED_POLICY)
              : NettyChannelBuilder.forAddress(address.host(), address.port(), credentials);
      builder
          .maxInboundMessageSize(maxInboundMessageBytes)
          .keepAliveTime(ServiceTarget.KEEPALIVE_TIME.toSeconds(), TimeUnit.SECONDS)
          .keepAliveTimeout(ServiceTarget.KEEPALIVE_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
          .keepAliveWithoutCalls(false);
      if (security.serverName() != null) {
        builder.overrideAuthority(security.serverName() + ":" + address.port());
      }
      ManagedChannel channel = builder.build();
      return files == null ? channel : new OwningChannel(channel, files);
    } catch (RuntimeException failure) {
      if (files != null) {
        files.close();
      }
      throw failure;
    }
  }

  /** The thread that checks client certificate files, shared by every client of the process. */
  static ScheduledExecutorService reloadScheduler() {
    return Reloads.SCHEDULER;
  }

  /** Checks of client certificate files, shared by all channels of the process. */
  private static final class Reloads {
    static final ScheduledExecutorService SCHEDULER =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "tenbin-client-tls-reload");
              thread.setDaemon(true);
              return thread;
            });
  }

  /** A channel that stops watching its certificate files when it is shut down. */
  private static final class OwningChannel extends ManagedChannel {
    private final ManagedChannel delegate;
    private final TlsFiles files;

    OwningChannel(ManagedChannel delegate, TlsFiles files) {
      this.delegate = delegate;
      this.files = files;
    }

    @Override
    public ManagedChannel shutdown() {
      files.close();
      delegate.shutdown();
      return this;
    }

    @Override
    public ManagedChannel shutdownNow() {
      files.close();
      delegate.shutdownNow();
      return this;
    }

    @Override
    public boolean isShutdown() {
      return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return delegate.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return delegate.awaitTermination(timeout, unit);
    }

    @Override
    public ConnectivityState getState(boolean requestConnection) {
      return delegate.getState(requestConnection);
    }

    @Override
    public void notifyWhenStateChanged(ConnectivityState source, Runnable callback) {
      delegate.notifyWhenStateChanged(source, callback);
    }

    @Override
    public void resetConnectBackoff() {
      delegate.resetConnectBackoff();
    }

    @Override
    public void enterIdle() {
      delegate.enterIdle();
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> newCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions callOptions) {
      return delegate.newCall(method, callOptions);
    }

    @Override
    public String authority() {
      return delegate.authority();
    }
  }
}
