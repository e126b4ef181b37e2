package dev.tenbin.integration.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.grpc.IndexGrpcService;
import dev.tenbin.rpc.ExceptionMappingInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The index service in this process over a data folder, reached by an in-process channel: core
 * exceptions become their statuses as in the server, and every call first passes through the test's
 * own interceptors (how a test counts what the service receives or breaks a stream).
 */
final class InProcessIndex implements AutoCloseable {
  final CollectionCatalog catalog;
  final ManagedChannel channel;
  private final Server server;

  InProcessIndex(Path data, ServerInterceptor... interceptors) throws IOException {
    catalog = CollectionCatalog.open(data);
    String name = "index-" + UUID.randomUUID();
    // the last interceptor listed sees a call first: the test's, then the exception mapping
    List<ServerInterceptor> chain = new ArrayList<>();
    chain.add(new ExceptionMappingInterceptor());
    chain.addAll(List.of(interceptors));
    server =
        InProcessServerBuilder.forName(name)
            .directExecutor()
            .addService(
                ServerInterceptors.intercept(
                    new IndexGrpcService(catalog, IndexServiceConfig.embedded(data)), chain))
            .build()
            .start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
  }

  IndexClient client() {
    return IndexClient.of(channel);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
    catalog.close();
  }
}
