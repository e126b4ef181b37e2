package dev.tenbin.testing.rpc;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import io.grpc.NameResolverRegistry;
import io.grpc.StatusOr;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a headless Service's DNS name is to a client, for tests: a name resolver under a scheme of
 * its own that resolves any name to the loopback ports it is told, registered in gRPC's default
 * registry until closed. Like DNS, a changed list reaches a channel only when the channel resolves
 * again ({@link #resolutions()} counts how often it did).
 */
public final class LoopbackResolver extends NameResolverProvider implements AutoCloseable {
  private final String scheme = "tenbintest" + ThreadLocalRandom.current().nextInt(1_000_000_000);
  private final AtomicInteger resolutions = new AtomicInteger();
  private volatile List<Integer> ports;

  /** Registers a resolver that resolves any name to these loopback ports. */
  public LoopbackResolver(List<Integer> ports) {
    this.ports = List.copyOf(ports);
    NameResolverRegistry.getDefaultRegistry().register(this);
  }

  /** The scheme channels name to use this resolver ({@code <scheme>:///any:1}). */
  public String scheme() {
    return scheme;
  }

  /** What the name resolves to from the next resolution on. */
  public void resolveTo(List<Integer> newPorts) {
    ports = List.copyOf(newPorts);
  }

  /** Resolutions so far, over every channel. */
  public int resolutions() {
    return resolutions.get();
  }

  @Override
  public NameResolver newNameResolver(URI targetUri, NameResolver.Args args) {
    if (!scheme.equals(targetUri.getScheme())) {
      return null;
    }
    return new NameResolver() {
      private Listener2 listener;

      @Override
      public String getServiceAuthority() {
        return targetUri.getPath().substring(1);
      }

      @Override
      public void start(Listener2 newListener) {
        listener = newListener;
        resolve();
      }

      @Override
      public void refresh() {
        resolve();
      }

      private void resolve() {
        resolutions.incrementAndGet();
        List<EquivalentAddressGroup> groups =
            ports.stream()
                .map(port -> new EquivalentAddressGroup(new InetSocketAddress("127.0.0.1", port)))
                .toList();
        listener.onResult2(
            ResolutionResult.newBuilder().setAddressesOrError(StatusOr.fromValue(groups)).build());
      }

      @Override
      public void shutdown() {}
    };
  }

  @Override
  public String getDefaultScheme() {
    return scheme;
  }

  @Override
  protected boolean isAvailable() {
    return true;
  }

  /** The lowest: never the registry's default scheme, so other channels are left alone. */
  @Override
  protected int priority() {
    return 0;
  }

  @Override
  public void close() {
    NameResolverRegistry.getDefaultRegistry().deregister(this);
  }
}
