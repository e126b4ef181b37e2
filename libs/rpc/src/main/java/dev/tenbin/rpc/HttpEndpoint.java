package dev.tenbin.rpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.tenbin.core.InvalidInputException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON over HTTP/1.1 beside a {@link GrpcServerHost}, for clients that do not speak gRPC (the JDK's
 * {@code com.sun.net.httpserver}). It is started by {@link GrpcServerHost#serveHttp} and shares
 * what guards the host's gRPC calls: the same bearer tokens ({@link BearerTokens#refusal}, 401),
 * the same admission limit and handler pool ({@link AdmissionControl}: an HTTP call takes one of
 * the {@code --max-concurrent-calls} permits gRPC calls take, or is refused at once with 429 and
 * {@code Retry-After}), the same TLS identity and client CA, reloaded with the files ({@link
 * TlsFiles}), and the same inbound size limit ({@code --max-message-bytes}, 413 beyond).
 *
 * <p>A small pool of {@code http-accept-N} threads reads request headers, answers {@code GET
 * /health} (never counted, never refused, no token needed: 200 when serving, 503 while draining),
 * and refuses what is not admitted; admitted calls read their body and run on the host's handler
 * pool. Failures are JSON {@code {"error":{"message","type","param"}}} with the status {@link
 * StatusMapper#toHttp} gives, never a stack trace. On close the endpoint drains: health and new
 * calls answer 503, calls in flight get the grace period, then the listener and threads stop.
 * Answers are counted in {@code tenbin.http.requests} (tags {@code path}, {@code status}).
 */
public final class HttpEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ACCEPT_THREADS = 4;

  /** The path of the health check. */
  public static final String HEALTH_PATH = "/health";

  /**
   * The work of one route: the request body in, a value Jackson writes as the 200 response out. Bad
   * input is a typed {@code dev.tenbin.core} exception naming the field.
   */
  @FunctionalInterface
  public interface Handler {
    Object handle(byte[] body);
  }

  /**
   * One route.
   *
   * @param method the HTTP method it answers ({@code POST})
   * @param path the exact path ({@code /v1/embeddings})
   * @param handler the work
   * @param params the request's name of a field a core exception names (a core speaks of {@code
   *     texts[2]} where the HTTP request says {@code input[2]}); identity when they agree
   */
  public record Route(String method, String path, Handler handler, UnaryOperator<String> params) {}

  /** What the endpoint shares with its host. */
  record Guards(
      AdmissionControl admission,
      BearerTokens tokens,
      Runnable onUnauthenticated,
      TlsFiles tls,
      boolean mutualTls,
      int maxBodyBytes,
      MeterRegistry registry) {}

  private final HttpServer server;
  private final ExecutorService accept;
  private final Guards guards;
  private final Map<String, Route> routes;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  private HttpEndpoint(
      HttpServer server, ExecutorService accept, Guards guards, Map<String, Route> routes) {
    this.server = server;
    this.accept = accept;
    this.guards = guards;
    this.routes = routes;
  }

  static HttpEndpoint start(String host, int port, Guards guards, List<Route> routes) {
    Map<String, Route> byPath =
        routes.stream().collect(Collectors.toUnmodifiableMap(Route::path, Function.identity()));
    AtomicInteger count = new AtomicInteger();
    ExecutorService accept =
        new ThreadPoolExecutor(
            ACCEPT_THREADS,
            ACCEPT_THREADS,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            runnable -> {
              Thread thread = new Thread(runnable, "http-accept-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    HttpServer server;
    try {
      InetSocketAddress address = new InetSocketAddress(host, port);
      if (guards.tls() != null) {
        HttpsServer https = HttpsServer.create(address, 0);
        https.setHttpsConfigurator(configurator(guards));
        server = https;
      } else {
        server = HttpServer.create(address, 0);
      }
    } catch (IOException e) {
      accept.shutdownNow();
      throw new UncheckedIOException(
          "cannot bind the HTTP endpoint on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    HttpEndpoint endpoint = new HttpEndpoint(server, accept, guards, byPath);
    server.createContext("/", endpoint::arrive);
    server.setExecutor(accept);
    server.start();
    return endpoint;
  }

  /** TLS from the host's key manager (and client CA), so a reloaded certificate serves both. */
  private static HttpsConfigurator configurator(Guards guards) {
    SSLContext context;
    try {
      context = SSLContext.getInstance("TLS");
      TrustManager[] trust =
          guards.mutualTls() ? new TrustManager[] {guards.tls().trustManager()} : null;
      context.init(new KeyManager[] {guards.tls().keyManager()}, trust, null);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS for HTTP: " + e.getMessage(), e);
    }
    return new HttpsConfigurator(context) {
      @Override
      public void configure(HttpsParameters parameters) {
        SSLParameters ssl = getSSLContext().getDefaultSSLParameters();
        ssl.setNeedClientAuth(guards.mutualTls());
        parameters.setSSLParameters(ssl);
      }
    };
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** Runs on an accept thread once the request line and headers are read. */
  private void arrive(HttpExchange exchange) throws IOException {
    try {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (HEALTH_PATH.equals(path)) {
        health(exchange, method);
        return;
      }
      Route route = routes.get(path);
      if (route == null) {
        error(exchange, 404, "not_found_error", "no such path: " + path, null, null);
        return;
      }
      if (!route.method().equals(method)) {
        exchange.getResponseHeaders().set("Allow", route.method());
        error(
            exchange, 405, "invalid_request_error", path + " takes " + route.method(), null, null);
        return;
      }
      if (draining) {
        error(exchange, 503, "service_unavailable", "the server is shutting down", null, retry());
        return;
      }
      if (guards.tokens() != null) {
        String refusal =
            guards.tokens().refusal(exchange.getRequestHeaders().getFirst("Authorization"));
        if (refusal != null) {
          guards.onUnauthenticated().run();
          exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
          error(exchange, 401, "authentication_error", refusal, null, null);
          return;
        }
      }
      if (!guards.admission().tryAdmit()) {
        error(
            exchange,
            429,
            "rate_limit_error",
            guards.admission().busyMessage(),
            null,
            guards.admission().retryAfter());
        return;
      }
      inFlight.incrementAndGet();
      try {
        guards.admission().handlers().execute(() -> serve(exchange, route));
      } catch (RejectedExecutionException e) {
        finished();
        error(exchange, 503, "service_unavailable", "the server is shutting down", null, retry());
      }
    } catch (IOException | RuntimeException e) {
      log.debug("HTTP exchange failed before it was served: {}", e.toString());
      exchange.close();
    }
  }

  /** Runs on a handler thread, holding an admission permit. */
  private void serve(HttpExchange exchange, Route route) {
    try {
      byte[] body = readBody(exchange);
      Object response = route.handler().handle(body);
      respond(exchange, 200, JSON.writeValueAsBytes(response));
    } catch (IOException e) {
      log.debug("HTTP exchange failed: {}", e.toString());
      exchange.close();
    } catch (RuntimeException e) {
      StatusMapper.HttpFailure failure = StatusMapper.toHttp(e);
      String field = failure.field() == null ? null : route.params().apply(failure.field());
      try {
        if (failure.status() == 413) {
          exchange.getResponseHeaders().set("Connection", "close");
        }
        error(
            exchange,
            failure.status(),
            failure.type(),
            failure.message(),
            field,
            failure.retryAfter());
      } catch (IOException io) {
        exchange.close();
      }
    } finally {
      finished();
    }
  }

  private void finished() {
    guards.admission().release();
    synchronized (inFlight) {
      inFlight.decrementAndGet();
      inFlight.notifyAll();
    }
  }

  /** The body, at most {@code --max-message-bytes}; beyond is 413 (the connection is closed). */
  private byte[] readBody(HttpExchange exchange) throws IOException {
    int max = guards.maxBodyBytes();
    String declared = exchange.getRequestHeaders().getFirst("Content-Length");
    if (declared != null) {
      long length;
      try {
        length = Long.parseLong(declared.strip());
      } catch (NumberFormatException e) {
        length = -1;
      }
      if (length > max) {
        throw tooLarge(length, max);
      }
    }
    try (InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readNBytes(max + 1);
      if (body.length > max) {
        throw tooLarge(body.length, max);
      }
      return body;
    }
  }

  private static InvalidInputException tooLarge(long bytes, int max) {
    return InvalidInputException.tooLarge(
        null,
        "the request body has "
            + (bytes > max ? "more than " + max : bytes)
            + " bytes; the limit is "
            + max
            + " (--max-message-bytes)");
  }

  private void health(HttpExchange exchange, String method) throws IOException {
    if (!"GET".equals(method) && !"HEAD".equals(method)) {
      exchange.getResponseHeaders().set("Allow", "GET, HEAD");
      error(exchange, 405, "invalid_request_error", HEALTH_PATH + " takes GET", null, null);
      return;
    }
    ObjectNode body = JSON.createObjectNode().put("status", draining ? "draining" : "serving");
    respond(exchange, draining ? 503 : 200, JSON.writeValueAsBytes(body));
  }

  private static Duration retry() {
    return dev.tenbin.core.OverloadedException.DEFAULT_RETRY_AFTER;
  }

  private void error(
      HttpExchange exchange,
      int status,
      String type,
      String message,
      String param,
      Duration retryAfter)
      throws IOException {
    ObjectNode error = JSON.createObjectNode();
    error.putObject("error").put("message", message).put("type", type).put("param", param);
    if (retryAfter != null) {
      long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
      exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds));
    }
    respond(exchange, status, JSON.writeValueAsBytes(error));
  }

  private void respond(HttpExchange exchange, int status, byte[] body) throws IOException {
    String path = exchange.getRequestURI().getPath();
    Counter.builder("tenbin.http.requests")
        .description("HTTP requests answered, by route and status")
        .tag("path", HEALTH_PATH.equals(path) || routes.containsKey(path) ? path : "other")
        .tag("status", Integer.toString(status))
        .register(guards.registry())
        .increment();
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    boolean head = "HEAD".equals(exchange.getRequestMethod());
    exchange.sendResponseHeaders(status, head ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      if (!head) {
        out.write(body);
      }
    }
  }

  /** Health and new calls answer 503 from now on; calls in flight go on. */
  void beginDrain() {
    draining = true;
  }

  /** Waits up to {@code grace} for the calls in flight to finish; true when none is left. */
  boolean awaitIdle(Duration grace) throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    synchronized (inFlight) {
      while (inFlight.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(inFlight, left);
      }
    }
    return true;
  }

  /** Drains (no grace) and stops: the listener closes, open connections are dropped. */
  @Override
  public void close() {
    draining = true;
    server.stop(0);
    accept.shutdownNow();
  }
}
