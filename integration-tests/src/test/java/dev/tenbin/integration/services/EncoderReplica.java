package dev.tenbin.integration.services;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.proto.encoder.v1.EncodeDenseRequest;
import dev.tenbin.proto.encoder.v1.StreamEncodeDenseRequest;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.HostPort;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.rpc.ServiceTarget;
import dev.tenbin.rpc.ServingLimits;
import dev.tenbin.testing.rpc.LoopbackResolver;
import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real encoder server (Netty on loopback, the models of {@code models}) counting the dense encode
 * calls it served ({@code EncodeDense} and {@code StreamEncodeDense}), optionally with further
 * interceptors around its services (a test's way to make one replica misbehave).
 */
public final class EncoderReplica implements AutoCloseable {
  /**
   * A channel to the replicas behind {@code resolver}'s name, balanced round_robin as the
   * orchestrator's encoder channel is; the caller shuts it down.
   */
  public static ManagedChannel balancedChannel(LoopbackResolver resolver) {
    return ClientChannels.open(
        new ServiceTarget(resolver.scheme(), new HostPort("tenbin-encoder-headless", 50051)),
        ClientSecurity.plaintext(),
        ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
  }

  /** The dense encode calls this replica was sent. */
  public final AtomicInteger served = new AtomicInteger();

  /** The texts those calls carried. */
  public final AtomicInteger texts = new AtomicInteger();

  public final EncoderCore core;
  public final GrpcServerHost host;
  private boolean closed;

  public EncoderReplica(
      Path models, Path cacheDirectory, ServingLimits limits, ServerInterceptor... more) {
    core = new EncoderCore(EncoderServiceConfig.embedded(models, cacheDirectory));
    List<BindableService> counted = new ArrayList<>();
    for (BindableService service : EncoderServer.services(core)) {
      ServerServiceDefinition definition =
          ServerInterceptors.intercept(
              ServerInterceptors.intercept(service.bindService(), more),
              new Counting(served, texts));
      counted.add(() -> definition);
    }
    host = GrpcServerHost.start(ServerSettings.ephemeral().withLimits(limits), counted);
  }

  public int port() {
    return host.port();
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      host.close();
      core.close();
    }
  }

  private static final class Counting implements ServerInterceptor {
    private final AtomicInteger served;
    private final AtomicInteger texts;

    Counting(AtomicInteger served, AtomicInteger texts) {
      this.served = served;
      this.texts = texts;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        @Override
        public void onMessage(ReqT message) {
          if (message instanceof EncodeDenseRequest request) {
            served.incrementAndGet();
            texts.addAndGet(request.getTextsCount());
          } else if (message instanceof StreamEncodeDenseRequest request) {
            served.incrementAndGet();
            texts.addAndGet(request.getRequest().getTextsCount());
          }
          super.onMessage(message);
        }
      };
    }
  }
}
