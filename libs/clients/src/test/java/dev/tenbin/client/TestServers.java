package dev.tenbin.client;

import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** In-process gRPC servers for the clients' tests: fake services, no network. */
public final class TestServers {
  private TestServers() {}

  /** A started in-process server and a channel to it; closing stops both at once. */
  public record InProcess(Server server, ManagedChannel channel) implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      channel.shutdownNow();
      server.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  /** Starts {@code services} on a new in-process server and opens a channel to it. */
  public static InProcess inProcess(BindableService... services) {
    String name = InProcessServerBuilder.generateName();
    InProcessServerBuilder builder = InProcessServerBuilder.forName(name);
    for (BindableService service : services) {
      builder.addService(service);
    }
    try {
      Server server = builder.build().start();
      return new InProcess(server, InProcessChannelBuilder.forName(name).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts {@code services} on a plaintext Netty server on a free loopback port. */
  public static Server loopback(BindableService... services) {
    return loopback(InsecureServerCredentials.create(), services);
  }

  /** Starts {@code services} on a Netty server on a free loopback port with {@code credentials}. */
  public static Server loopback(ServerCredentials credentials, BindableService... services) {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0), credentials);
    for (BindableService service : services) {
      builder.addService(service);
    }
    try {
      return builder.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops {@code server} at once and waits for it. */
  public static void stop(Server server) throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Stops {@code channel} at once and waits for it. */
  public static void stop(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
  }
}
