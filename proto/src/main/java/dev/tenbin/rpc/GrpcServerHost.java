package dev.tenbin.rpc;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.grpc.MetricCollectingServerInterceptor;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one or more gRPC services the Tenbin way: health checking ({@code grpc.health.v1}), server
 * reflection (grpcurl works), Micrometer request counts and latency per RPC, exception-to-status
 * mapping, a message size cap, and a graceful stop (shutdown, await, shutdownNow).
 */
public final class GrpcServerHost implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GrpcServerHost.class);

  private final Server server;
  private final HealthStatusManager health;
  private final MeterRegistry registry;
  private final MetricsHttpServer metricsEndpoint;
  private final Duration shutdownGrace;
  private final String inProcessName;

  private GrpcServerHost(
      Server server,
      HealthStatusManager health,
      MeterRegistry registry,
      MetricsHttpServer metricsEndpoint,
      Duration shutdownGrace,
      String inProcessName) {
    this.server = server;
    this.health = health;
    this.registry = registry;
    this.metricsEndpoint = metricsEndpoint;
    this.shutdownGrace = shutdownGrace;
    this.inProcessName = inProcessName;
  }

  /** Starts a network server (Netty) with a Prometheus registry and, if enabled, its endpoint. */
  public static GrpcServerHost start(ServerSettings settings, List<BindableService> services) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ServerBuilder<?> builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(settings.host(), settings.port()))
            .maxInboundMessageSize(settings.maxMessageBytes());
    MetricsHttpServer endpoint =
        settings.metricsPort() >= 0
            ? MetricsHttpServer.start(settings.host(), settings.metricsPort(), registry)
            : null;
    return build(builder, registry, services, endpoint, settings.shutdownGrace(), null);
  }

  /** Starts an in-process server (the orchestrator's embedded default, and tests). */
  public static GrpcServerHost startInProcess(
      String name, MeterRegistry registry, List<BindableService> services) {
    ServerBuilder<?> builder =
        InProcessServerBuilder.forName(name)
            .maxInboundMessageSize(ServerSettings.DEFAULT_MAX_MESSAGE_BYTES);
    return build(builder, registry, services, null, Duration.ofSeconds(5), name);
  }

  private static GrpcServerHost build(
      ServerBuilder<?> builder,
      MeterRegistry registry,
      List<BindableService> services,
      MetricsHttpServer endpoint,
      Duration grace,
      String inProcessName) {
    HealthStatusManager health = new HealthStatusManager();
    MetricCollectingServerInterceptor metrics = new MetricCollectingServerInterceptor(registry);
    ExceptionMappingInterceptor errors = new ExceptionMappingInterceptor();
    for (BindableService service : services) {
      ServerServiceDefinition definition = service.bindService();
      metrics.preregisterService(definition);
      // Interceptors run last-added first: metrics see the mapped status.
      builder.addService(ServerInterceptors.intercept(definition, errors, metrics));
    }
    builder.addService(health.getHealthService());
    builder.addService(ProtoReflectionServiceV1.newInstance());
    Server server;
    try {
      server = builder.build().start();
    } catch (IOException e) {
      if (endpoint != null) {
        endpoint.close();
      }
      throw new UncheckedIOException("cannot start the gRPC server: " + e.getMessage(), e);
    }
    for (BindableService service : services) {
      health.setStatus(
          service.bindService().getServiceDescriptor().getName(),
          io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    }
    health.setStatus(
        HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
        io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    return new GrpcServerHost(server, health, registry, endpoint, grace, inProcessName);
  }

  /** The bound gRPC port (network servers only; -1 in-process). */
  public int port() {
    return server.getPort();
  }

  public String inProcessName() {
    return inProcessName;
  }

  /** The bound metrics port, or -1 when the endpoint is disabled. */
  public int metricsPort() {
    return metricsEndpoint == null ? -1 : metricsEndpoint.port();
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Stops gracefully when the JVM receives SIGTERM or SIGINT. */
  public GrpcServerHost stopOnSignal(String serviceName) {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("{}: shutting down, grace {}", serviceName, shutdownGrace);
                  close();
                },
                serviceName + "-shutdown"));
    return this;
  }

  public void blockUntilShutdown() throws InterruptedException {
    server.awaitTermination();
  }

  /** Health goes NOT_SERVING, new calls are refused, in-flight calls get the grace period. */
  @Override
  public void close() {
    health.enterTerminalState();
    server.shutdown();
    try {
      if (!server.awaitTermination(shutdownGrace.toMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      if (metricsEndpoint != null) {
        metricsEndpoint.close();
      }
    }
  }
}
