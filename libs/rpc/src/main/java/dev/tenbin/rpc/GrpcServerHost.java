package dev.tenbin.rpc;

import dev.tenbin.core.OrderedShutdown;
import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.TlsServerCredentials;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.grpc.MetricCollectingServerInterceptor;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one or more gRPC services the Tenbin way: health checking ({@code grpc.health.v1}), server
 * reflection ({@code v1} and {@code v1alpha}, so old and new grpcurl work), Micrometer request
 * counts and latency histograms per RPC plus JVM and process metrics, exception-to-status mapping
 * with error ids, and a graceful stop (shutdown, await, shutdownNow).
 *
 * <p>A network server also gets what a service reachable by others needs ({@link ServerSettings}):
 * TLS and mutual TLS from PEM files reloaded without a restart ({@link TlsFiles}), bearer tokens
 * ({@link BearerAuthInterceptor}), a fixed handler pool with an admission limit ({@link
 * AdmissionControl}), keepalive that drops dead clients, and message and header size limits. It can
 * serve JSON over HTTP beside gRPC ({@link #serveHttp}) under the same tokens, limits and TLS. An
 * in-process server runs its calls on a fixed pool of its own too ({@link HandlerPool}), without
 * admission limit: its callers are the process itself.
 */
public final class GrpcServerHost implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GrpcServerHost.class);

  private final Server server;
  private final HealthStatusManager health;
  private final MeterRegistry registry;
  private final MetricsHttpServer metricsEndpoint;
  private final Duration shutdownGrace;
  private final String inProcessName;
  private final Deque<AutoCloseable> resources;
  private final Deque<AutoCloseable> owned = new ArrayDeque<>();
  private final CallDrain drain;
  private HttpEndpoint.Guards httpGuards;
  private String bindAddress;
  private HttpEndpoint http;
  private volatile boolean closed;
  private volatile boolean serving;
  private final List<String> serviceNames;

  private GrpcServerHost(
      Server server,
      HealthStatusManager health,
      MeterRegistry registry,
      MetricsHttpServer metricsEndpoint,
      Duration shutdownGrace,
      String inProcessName,
      Deque<AutoCloseable> resources,
      List<String> serviceNames,
      CallDrain drain) {
    this.server = server;
    this.drain = drain;
    this.health = health;
    this.serviceNames = List.copyOf(serviceNames);
    this.registry = registry;
    this.metricsEndpoint = metricsEndpoint;
    this.shutdownGrace = shutdownGrace;
    this.inProcessName = inProcessName;
    this.resources = resources;
  }

  /** Starts a network server (Netty) with a Prometheus registry and, if enabled, its endpoint. */
  public static GrpcServerHost start(ServerSettings settings, List<BindableService> services) {
    return start(settings, services, true);
  }

  /**
   * As {@link #start(ServerSettings, List)}; unless {@code servingAtStart}, health (gRPC and {@code
   * /readyz}) says NOT_SERVING until {@link #markServing} — a server that preloads its models first
   * takes calls, but no traffic is sent its way before they are loaded.
   */
  public static GrpcServerHost start(
      ServerSettings settings, List<BindableService> services, boolean servingAtStart) {
    ServerSecurity security = settings.security();
    ServingLimits limits = settings.limits();
    security.checkBind(settings.host());
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // Closed in reverse order of opening when the host stops (or when starting fails).
    Deque<AutoCloseable> resources = new ArrayDeque<>();
    MetricsHttpServer endpoint = null;
    try {
      resources.push(OperatorMetrics.bind(registry));
      AdmissionControl admission = new AdmissionControl(limits, registry);
      resources.push(admission);
      TlsFiles[] tls = new TlsFiles[1];
      NettyServerBuilder builder =
          NettyServerBuilder.forAddress(
                  new InetSocketAddress(settings.host(), settings.port()),
                  credentials(security, resources, tls))
              .maxInboundMessageSize(settings.maxMessageBytes())
              .maxInboundMetadataSize(limits.maxMetadataBytes())
              .maxConcurrentCallsPerConnection(limits.maxConcurrentCallsPerConnection())
              .keepAliveTime(limits.keepAliveTime().toMillis(), TimeUnit.MILLISECONDS)
              .keepAliveTimeout(limits.keepAliveTimeout().toMillis(), TimeUnit.MILLISECONDS)
              .maxConnectionIdle(limits.maxConnectionIdle().toMillis(), TimeUnit.MILLISECONDS)
              .permitKeepAliveTime(
                  ServingLimits.PERMIT_KEEPALIVE_TIME.toSeconds(), TimeUnit.SECONDS)
              .permitKeepAliveWithoutCalls(false)
              .executor(admission.lookupExecutor())
              .callExecutor(admission.executorSupplier())
              .addStreamTracerFactory(admission.tracerFactory());
      if (!limits.maxConnectionAge().isZero()) {
        builder
            .maxConnectionAge(limits.maxConnectionAge().toMillis(), TimeUnit.MILLISECONDS)
            .maxConnectionAgeGrace(
                limits.maxConnectionAgeGrace().toMillis(), TimeUnit.MILLISECONDS);
      }
      // Server interceptors run last-added first: tokens are checked before admission.
      builder.intercept(admission.interceptor());
      BearerTokens tokens = null;
      Counter unauthenticated = null;
      if (security.tokens()) {
        tokens = BearerTokens.load(security.authTokenFile(), BearerTokens.DEFAULT_RECHECK);
        unauthenticated =
            Counter.builder("tenbin.rpc.calls.unauthenticated")
                .description("Calls refused for a missing or wrong bearer token")
                .register(registry);
        builder.intercept(new BearerAuthInterceptor(tokens, unauthenticated::increment));
      }
      Runnable onUnauthenticated = unauthenticated == null ? () -> {} : unauthenticated::increment;
      warnIfOpen(settings);
      if (settings.metricsPort() >= 0) {
        endpoint = MetricsHttpServer.start(settings.host(), settings.metricsPort(), registry);
      }
      GrpcServerHost host =
          build(
              builder,
              registry,
              services,
              endpoint,
              settings.shutdownGrace(),
              null,
              resources,
              servingAtStart,
              limits.retryAfter());
      host.bindAddress = settings.host();
      host.httpGuards =
          new HttpEndpoint.Guards(
              admission,
              tokens,
              onUnauthenticated,
              tls[0],
              security.mutualTls(),
              settings.maxMessageBytes(),
              registry);
      log.info(
          "gRPC on {}:{}: {}, {}; {} handler threads, {} concurrent calls at most",
          settings.host(),
          host.port(),
          security.tls()
              ? (security.mutualTls() ? "TLS with client certificates" : "TLS")
              : "plaintext",
          security.tokens() ? "bearer tokens required" : "no tokens",
          limits.handlerThreads(),
          limits.maxConcurrentCalls());
      return host;
    } catch (RuntimeException failure) {
      if (endpoint != null) {
        endpoint.close();
      }
      closeAll(resources);
      throw failure;
    }
  }

  /**
   * Starts a network server for {@code services(core)} and hands {@code core} to it ({@link
   * #owning}): closed after the server has stopped. When the services cannot be made or the server
   * cannot start, {@code core} is closed and the failure thrown.
   */
  public static <C extends AutoCloseable> GrpcServerHost startOwning(
      ServerSettings settings,
      C core,
      Function<? super C, List<BindableService>> services,
      boolean servingAtStart) {
    try {
      return start(settings, services.apply(core), servingAtStart).owning(core);
    } catch (RuntimeException e) {
      closeAfterFailure(core, e);
      throw e;
    }
  }

  /**
   * Starts an in-process server for {@code services(core)} and hands {@code core} to it, as {@link
   * #startOwning} does for a network server.
   */
  public static <C extends AutoCloseable> GrpcServerHost startInProcessOwning(
      String name,
      MeterRegistry registry,
      C core,
      Function<? super C, List<BindableService>> services) {
    try {
      return startInProcess(name, registry, services.apply(core)).owning(core);
    } catch (RuntimeException e) {
      closeAfterFailure(core, e);
      throw e;
    }
  }

  private static void closeAfterFailure(AutoCloseable core, RuntimeException failure) {
    try {
      core.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Starts an in-process server (the orchestrator's embedded default, and tests) on its own pool of
   * {@link ServingLimits#inProcessHandlerThreads()} handler threads.
   */
  public static GrpcServerHost startInProcess(
      String name, MeterRegistry registry, List<BindableService> services) {
    return startInProcess(name, registry, services, ServingLimits.inProcessHandlerThreads());
  }

  /**
   * Starts an in-process server whose calls run on a fixed pool of {@code handlerThreads} threads
   * named {@code <name>-handler-N} (calls beyond wait in its queue, none is refused); the pool
   * stops when the host closes, after the server has terminated. A handler must not wait for a call
   * to its own host (each embedded service has its own host, so nested calls never do).
   */
  public static GrpcServerHost startInProcess(
      String name, MeterRegistry registry, List<BindableService> services, int handlerThreads) {
    if (handlerThreads < 1) {
      throw new IllegalArgumentException(
          "handler threads must be at least 1, got " + handlerThreads);
    }
    Deque<AutoCloseable> resources = new ArrayDeque<>();
    HandlerPool handlers = new HandlerPool(handlerThreads, name + "-handler-");
    resources.push(handlers);
    try {
      ServerBuilder<?> builder =
          InProcessServerBuilder.forName(name)
              .maxInboundMessageSize(ServerSettings.DEFAULT_MAX_MESSAGE_BYTES)
              .executor(handlers);
      return build(
          builder,
          registry,
          services,
          null,
          Duration.ofSeconds(5),
          name,
          resources,
          true,
          ServingLimits.DEFAULT_RETRY_AFTER);
    } catch (RuntimeException failure) {
      closeAll(resources);
      throw failure;
    }
  }

  private static ServerCredentials credentials(
      ServerSecurity security, Deque<AutoCloseable> resources, TlsFiles[] opened) {
    if (!security.tls()) {
      return InsecureServerCredentials.create();
    }
    ScheduledExecutorService reloads =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "tenbin-tls-reload");
              thread.setDaemon(true);
              return thread;
            });
    resources.push(reloads::shutdownNow);
    TlsFiles files =
        TlsFiles.open(
            security.tlsCert(),
            security.tlsKey(),
            security.tlsClientCa(),
            new TlsFiles.Labels("--tls-cert", "--tls-key", "--tls-client-ca"),
            AdvancedTlsX509TrustManager.Verification.CERTIFICATE_ONLY_VERIFICATION,
            security.reloadInterval(),
            reloads);
    resources.push(files);
    opened[0] = files;
    TlsServerCredentials.Builder tls =
        TlsServerCredentials.newBuilder().keyManager(files.keyManager());
    if (security.mutualTls()) {
      tls.trustManager(files.trustManager()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
    }
    return tls.build();
  }

  private static void warnIfOpen(ServerSettings settings) {
    if (ServerSecurity.isLoopback(settings.host())) {
      return;
    }
    if (!settings.security().tls()) {
      log.warn(
          "serving plaintext on {} (--allow-plaintext): only behind a TLS-terminating proxy or mesh",
          settings.host());
    }
    if (!settings.security().tokens() && !settings.security().mutualTls()) {
      log.warn(
          "no --auth-token-file and no --tls-client-ca: every client that reaches {}:{} is trusted",
          settings.host(),
          settings.port());
    }
  }

  @SuppressWarnings("deprecation") // v1alpha reflection, for grpcurl releases that only know it
  private static GrpcServerHost build(
      ServerBuilder<?> builder,
      MeterRegistry registry,
      List<BindableService> services,
      MetricsHttpServer endpoint,
      Duration grace,
      String inProcessName,
      Deque<AutoCloseable> resources,
      boolean servingAtStart,
      Duration retryAfter) {
    HealthStatusManager health = new HealthStatusManager();
    CallDrain drain = new CallDrain(retryAfter);
    // Each call's arrival, before it waits for a handler thread (CallArrival).
    builder.addStreamTracerFactory(CallArrival.tracerFactory());
    MetricCollectingServerInterceptor metrics = new MetricCollectingServerInterceptor(registry);
    ExceptionMappingInterceptor errors = new ExceptionMappingInterceptor();
    for (BindableService service : services) {
      // Requests protobuf cannot decode are INVALID_ARGUMENT, not application errors.
      ServerServiceDefinition definition = RequestDecoding.refusingMalformed(service.bindService());
      metrics.preregisterService(definition);
      // Interceptors run last-added first: metrics see the mapped status; the drain is innermost,
      // so a call it hands back is sanitized and counted like any other.
      builder.addService(
          ServerInterceptors.intercept(definition, drain.interceptor(), errors, metrics));
    }
    builder.addService(health.getHealthService());
    builder.addService(ProtoReflectionServiceV1.newInstance());
    builder.addService(io.grpc.protobuf.services.ProtoReflectionService.newInstance());
    Server server;
    try {
      server = builder.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the gRPC server: " + e.getMessage(), e);
    }
    List<String> names = new java.util.ArrayList<>();
    for (BindableService service : services) {
      names.add(service.bindService().getServiceDescriptor().getName());
    }
    GrpcServerHost host =
        new GrpcServerHost(
            server, health, registry, endpoint, grace, inProcessName, resources, names, drain);
    if (servingAtStart) {
      host.markServing();
    } else {
      host.setHealth(io.grpc.health.v1.HealthCheckResponse.ServingStatus.NOT_SERVING);
    }
    if (endpoint != null) {
      endpoint.probes(
          () -> !host.closed && !dev.tenbin.core.OrderedShutdown.isShuttingDown(),
          () -> host.serving && !host.closed);
    }
    return host;
  }

  /**
   * Says SERVING from now on (gRPC health and {@code /readyz}): the server started with {@code
   * servingAtStart} false has its models loaded. Does nothing once closing.
   */
  public synchronized void markServing() {
    if (closed) {
      return;
    }
    serving = true;
    setHealth(io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
  }

  /** Whether health says SERVING now. */
  public boolean isServing() {
    return serving && !closed;
  }

  private void setHealth(io.grpc.health.v1.HealthCheckResponse.ServingStatus status) {
    for (String name : serviceNames) {
      health.setStatus(name, status);
    }
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
  }

  /** The bound gRPC port (network servers only; -1 in-process). */
  public int port() {
    return server.getPort();
  }

  public String inProcessName() {
    return inProcessName;
  }

  /**
   * Serves {@code routes} as JSON over HTTP on {@code port} (0 picks a free one) of the gRPC
   * server's address, under the same bearer tokens, admission limit, handler pool, TLS and message
   * size limit ({@link HttpEndpoint}); it stops with the host, draining like the gRPC side. Network
   * servers only, once.
   */
  public synchronized GrpcServerHost serveHttp(int port, List<HttpEndpoint.Route> routes) {
    return serveHttp(port, routes, List.of());
  }

  /**
   * Serves JSON {@code routes} and {@code webRoutes} (pages, files, downloads of any content type)
   * on {@code port}, as {@link #serveHttp(int, List)}.
   */
  public synchronized GrpcServerHost serveHttp(
      int port, List<HttpEndpoint.Route> routes, List<HttpEndpoint.WebRoute> webRoutes) {
    if (httpGuards == null) {
      throw new IllegalStateException("an in-process server has no HTTP endpoint");
    }
    if (http != null) {
      throw new IllegalStateException("the HTTP endpoint is already serving");
    }
    if (closed) {
      throw new IllegalStateException("the server is stopped");
    }
    http = HttpEndpoint.start(bindAddress, port, httpGuards, routes, webRoutes);
    log.info(
        "HTTP on {}:{}: {}, {}",
        bindAddress,
        http.port(),
        httpGuards.tls() == null ? "plaintext" : "TLS",
        httpGuards.tokens() == null ? "no tokens" : "bearer tokens required");
    return this;
  }

  /** The bound HTTP port, or -1 when no HTTP endpoint is served. */
  public synchronized int httpPort() {
    return http == null ? -1 : http.port();
  }

  /** The bound metrics port, or -1 when the endpoint is disabled. */
  public int metricsPort() {
    return metricsEndpoint == null ? -1 : metricsEndpoint.port();
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** The admission control of a network server (null in-process), for tests. */
  AdmissionControl admission() {
    return httpGuards == null ? null : httpGuards.admission();
  }

  /**
   * Stops gracefully when the JVM shuts down (SIGTERM, SIGINT, {@code System.exit}): first among
   * the process's {@link OrderedShutdown} steps, so no call is still running when the service's
   * cores and native resources close after it.
   */
  public GrpcServerHost stopOnSignal(String serviceName) {
    OrderedShutdown.register(
        OrderedShutdown.Stage.SERVERS,
        serviceName + " server",
        () -> {
          log.info("{}: shutting down, grace {}", serviceName, shutdownGrace);
          close();
        });
    return this;
  }

  /**
   * Hands {@code resource} (a service's core, a channel it calls out on) to this host: it is closed
   * when the host stops, after the server has terminated and its handler threads have stopped, so
   * no call can still use it. Resources close in reverse order of handing over; closing one that is
   * already closed must be harmless. When the host is already stopped, {@code resource} is closed
   * at once.
   */
  public GrpcServerHost owning(AutoCloseable resource) {
    boolean stopped;
    synchronized (owned) {
      stopped = server.isShutdown();
      if (!stopped) {
        owned.push(resource);
      }
    }
    if (stopped) {
      Deque<AutoCloseable> alone = new ArrayDeque<>();
      alone.push(resource);
      closeAll(alone);
    }
    return this;
  }

  public void blockUntilShutdown() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Serves until SIGTERM/SIGINT ({@link #stopOnSignal}) or until closed otherwise: logs {@code
   * <service> listening on HOST:PORT (metrics port N, <details>)}, then waits for the server to
   * terminate. For a network server.
   */
  public void serveUntilShutdown(String serviceName, String details) throws InterruptedException {
    stopOnSignal(serviceName);
    log.info(
        "{} listening on {}:{} (metrics port {}{})",
        serviceName,
        bindAddress,
        port(),
        metricsPort(),
        details.isEmpty() ? "" : ", " + details);
    blockUntilShutdown();
  }

  /**
   * Stops gracefully (a SIGTERM of a rolling update, a node drain), so that no client's work fails
   * for it: health goes NOT_SERVING at once; new calls are refused with UNAVAILABLE and a retry
   * delay; open streams are handed back with that status at their next message boundary (an ingest
   * after the batch in progress is committed and acknowledged, a streamed encode after its next
   * chunk), unary calls get half the grace period to finish and are then handed back the same way
   * ({@link CallDrain}). Clients retry UNAVAILABLE (on another replica, or here once restarted);
   * none sees CANCELLED unless a call outlasts the whole grace. Then what the host owns is closed.
   * A second call (the signal handler and the serving thread both close) returns once the first has
   * finished.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    health.enterTerminalState();
    if (http != null) {
      http.beginDrain();
    }
    long deadline = System.nanoTime() + shutdownGrace.toNanos();
    drain.begin();
    server.shutdown();
    try {
      if (!drain.awaitIdle(shutdownGrace.dividedBy(2))) {
        log.info("handing back {} calls still open half-way through the grace", drain.open());
        drain.handBackAll();
      }
      long left = Math.max(0, deadline - System.nanoTime());
      if (!server.awaitTermination(left, TimeUnit.NANOSECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
      if (http != null) {
        http.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      if (http != null) {
        http.close();
      }
      if (metricsEndpoint != null) {
        metricsEndpoint.close();
      }
      closeAll(resources);
      synchronized (owned) {
        closeAll(owned);
      }
    }
  }

  private static void closeAll(Deque<AutoCloseable> resources) {
    synchronized (resources) {
      while (!resources.isEmpty()) {
        try {
          resources.pop().close();
        } catch (Exception e) {
          log.warn("closing a server resource failed: {}", e.toString());
        }
      }
    }
  }
}
