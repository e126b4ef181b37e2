package dev.tenbin.eval.services;

import dev.tenbin.index.IndexServer;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The services an evaluation talks to. By default each one is started in this process (the
 * embedded default) and reached over gRPC's in-process transport; an endpoint option points the
 * orchestrator at a running service instead. Either way every call goes through the v1 contract.
 */
public final class Services implements AutoCloseable {
  private static final int MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

  private final ManagedChannel indexChannel;
  private final String indexDescription;
  private final List<AutoCloseable> owned = new ArrayList<>();

  private Services(ManagedChannel indexChannel, String indexDescription, List<AutoCloseable> owned) {
    this.indexChannel = indexChannel;
    this.indexDescription = indexDescription;
    this.owned.addAll(owned);
  }

  /** Connects to the given endpoint, or starts the service in-process when it is null. */
  public static Services connect(ServiceEndpoint indexEndpoint) {
    if (indexEndpoint != null) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress(indexEndpoint.host(), indexEndpoint.port())
              .usePlaintext()
              .maxInboundMessageSize(MAX_MESSAGE_BYTES)
              .build();
      return new Services(channel, "remote " + indexEndpoint, List.of());
    }
    Path dataDirectory = createTempDirectory();
    String name = "tenbin-index-" + UUID.randomUUID();
    IndexServer.Embedded index =
        IndexServer.startInProcess(name, dataDirectory, new SimpleMeterRegistry());
    ManagedChannel channel =
        InProcessChannelBuilder.forName(name).maxInboundMessageSize(MAX_MESSAGE_BYTES).build();
    return new Services(
        channel, "embedded (in-process)", List.of(index, () -> deleteRecursively(dataDirectory)));
  }

  public ManagedChannel indexChannel() {
    return indexChannel;
  }

  public String indexDescription() {
    return indexDescription;
  }

  @Override
  public void close() {
    indexChannel.shutdown();
    try {
      indexChannel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (AutoCloseable resource : owned) {
      try {
        resource.close();
      } catch (Exception e) {
        // Closing is best effort; the process is ending its use of these services.
      }
    }
  }

  private static Path createTempDirectory() {
    try {
      return Files.createTempDirectory("tenbin-index-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary index folder", e);
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
