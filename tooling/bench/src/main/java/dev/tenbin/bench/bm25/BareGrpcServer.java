package dev.tenbin.bench.bm25;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * gRPC-Java with its default settings and executor on a free loopback port, no Tenbin code: the
 * {@code grpc.health.v1} service and one unary method whose handler keeps its thread busy for as
 * long as the request asks (a spin on the clock, as a search keeps a core busy), with a client of
 * its own over its own channel. What a call to it costs is what gRPC-Java itself costs on the
 * machine; with the work set to a search's in-process time it is the least that search can cost
 * over gRPC in any service built on gRPC-Java, whatever the service does.
 */
final class BareGrpcServer implements AutoCloseable {
  /** The request is the work in nanoseconds; the answer is the nanoseconds the handler spun. */
  static final MethodDescriptor<Long, Long> WORK =
      MethodDescriptor.<Long, Long>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(
              MethodDescriptor.generateFullMethodName("tenbin.bench.v1.Bare", "Work"))
          .setRequestMarshaller(new LongMarshaller())
          .setResponseMarshaller(new LongMarshaller())
          .build();

  private static final HealthCheckRequest CHECK = HealthCheckRequest.getDefaultInstance();

  private final Server server;
  private final ManagedChannel channel;
  private final HealthGrpc.HealthBlockingStub health;

  private BareGrpcServer(Server server) {
    this.server = server;
    this.channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    this.health = HealthGrpc.newBlockingStub(channel);
  }

  static BareGrpcServer start() {
    ServerServiceDefinition work =
        ServerServiceDefinition.builder("tenbin.bench.v1.Bare")
            .addMethod(
                WORK,
                ServerCalls.asyncUnaryCall(
                    (nanos, response) -> {
                      response.onNext(spin(nanos));
                      response.onCompleted();
                    }))
            .build();
    try {
      return new BareGrpcServer(
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .addService(new HealthStatusManager().getHealthService())
              .addService(work)
              .build()
              .start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the bare gRPC server", e);
    }
  }

  void checkHealth() {
    health.withDeadlineAfter(60, TimeUnit.SECONDS).check(CHECK);
  }

  /** One call whose handler spins for {@code nanos}; returns the nanoseconds it spun. */
  long work(long nanos) {
    return ClientCalls.blockingUnaryCall(
        channel, WORK, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), nanos);
  }

  /** Keeps the thread busy until {@code nanos} have passed on the monotonic clock. */
  static long spin(long nanos) {
    long start = System.nanoTime();
    long now = start;
    while (now - start < nanos) {
      Thread.onSpinWait();
      now = System.nanoTime();
    }
    return now - start;
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  /** A long as its 8 big-endian bytes. */
  private static final class LongMarshaller implements MethodDescriptor.Marshaller<Long> {
    @Override
    public InputStream stream(Long value) {
      return new ByteArrayInputStream(ByteBuffer.allocate(Long.BYTES).putLong(value).array());
    }

    @Override
    public Long parse(InputStream stream) {
      try {
        byte[] bytes = stream.readNBytes(Long.BYTES + 1);
        if (bytes.length != Long.BYTES) {
          throw new IllegalArgumentException(
              "a bare work message is " + Long.BYTES + " bytes, not " + bytes.length);
        }
        return ByteBuffer.wrap(bytes).getLong();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
