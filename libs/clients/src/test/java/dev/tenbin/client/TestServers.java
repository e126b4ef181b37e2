package dev.tenbin.client;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
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
}
