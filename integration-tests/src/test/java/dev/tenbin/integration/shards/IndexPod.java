package dev.tenbin.integration.shards;

import dev.tenbin.eval.services.IndexPlacement;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.rpc.ExceptionMappingInterceptor;
import io.grpc.BindableService;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A real index server on loopback as one pod of an index StatefulSet, that can be killed ({@code
 * shutdownNow}: open calls cut, new connections refused, as when its pod dies), recording the
 * collection of every call it served. A pod started on the port of a killed one is that pod come
 * back (or its replacement) at the same address.
 */
final class IndexPod implements AutoCloseable {
  final List<String> calls = new CopyOnWriteArrayList<>();
  final CollectionCatalog catalog;
  final Server server;

  /** A pod on a free port serving the data directory {@code data}. */
  IndexPod(Path data) throws IOException {
    this(data, 0, UnaryOperator.identity());
  }

  /**
   * A pod on {@code port} (0: a free one) serving {@code data}, each request message passed through
   * {@code requests} before the service reads it (how a test damages what a pod receives).
   */
  IndexPod(Path data, int port, UnaryOperator<Object> requests) throws IOException {
    this(data, port, requests, null);
  }

  /**
   * As above, every call first passing through {@code faults} (null: none), which may end it or
   * hold back what it answers (how a test cuts a stream or has a pod stop answering in the middle
   * of one).
   */
  IndexPod(Path data, int port, UnaryOperator<Object> requests, ServerInterceptor faults)
      throws IOException {
    catalog = CollectionCatalog.open(data);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .maxInboundMessageSize(64 * 1024 * 1024);
    for (BindableService service :
        IndexServer.services(catalog, IndexServiceConfig.embedded(data))) {
      // Core exceptions become their statuses (NOT_FOUND, INVALID_ARGUMENT, ...) as in the server.
      ServerServiceDefinition recorded =
          ServerInterceptors.intercept(
              service.bindService(), new ExceptionMappingInterceptor(), new Recording(requests));
      builder.addService(
          faults == null ? recorded : ServerInterceptors.intercept(recorded, faults));
    }
    server = builder.build().start();
  }

  int port() {
    return server.getPort();
  }

  /** Kills the pod: its calls are cut, its port refuses connections. */
  void kill() {
    server.shutdownNow();
  }

  /**
   * Kills the pod once its first {@code Ingest} call about {@code collection} has arrived (waiting
   * at most 30 s for it): a pod lost in the middle of an ingest.
   */
  void killOnceIngesting(String collection) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (served("Ingest", collection) == 0 && System.nanoTime() < until) {
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
    }
    kill();
  }

  /** How many calls of {@code method} this pod served about {@code collection}. */
  long served(String method, String collection) {
    return calls.stream().filter(call -> call.equals(method + " " + collection)).count();
  }

  @Override
  public void close() throws Exception {
    server.shutdownNow();
    server.awaitTermination(10, TimeUnit.SECONDS);
    catalog.close();
  }

  private final class Recording implements ServerInterceptor {
    private final UnaryOperator<Object> requests;

    Recording(UnaryOperator<Object> requests) {
      this.requests = requests;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      String method = call.getMethodDescriptor().getBareMethodName();
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(call, headers)) {
        private boolean first = true;

        @Override
        @SuppressWarnings("unchecked")
        public void onMessage(ReqT message) {
          if (first) {
            calls.add(method + " " + IndexPlacement.collectionOf(message));
            first = false;
          }
          super.onMessage((ReqT) requests.apply(message));
        }
      };
    }
  }
}
