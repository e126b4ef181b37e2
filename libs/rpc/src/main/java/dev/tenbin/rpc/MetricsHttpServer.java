package dev.tenbin.rpc;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * The plaintext management port of a server: the Prometheus text exposition of its registry at
 * {@code /metrics}, and the probes the kubelet (or any checker) asks whatever the gRPC port's TLS
 * and tokens: {@code GET /livez} is 200 while the process runs and is not shutting down, {@code GET
 * /readyz} 200 while the service is SERVING (its models preloaded) and 503 otherwise. Both answer a
 * line of text; neither needs a token.
 */
public final class MetricsHttpServer implements AutoCloseable {
  private final HttpServer server;
  private volatile BooleanSupplier live = () -> true;
  // Not ready until the server that owns this endpoint says what readiness is: the endpoint starts
  // before the gRPC server has bound its port.
  private volatile BooleanSupplier ready = () -> false;

  private MetricsHttpServer(HttpServer server) {
    this.server = server;
  }

  public static MetricsHttpServer start(String host, int port, PrometheusMeterRegistry registry) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
      MetricsHttpServer endpoint = new MetricsHttpServer(server);
      server.createContext(
          "/metrics",
          exchange ->
              answer(
                  exchange,
                  200,
                  "text/plain; version=0.0.4; charset=utf-8",
                  registry.scrape().getBytes(StandardCharsets.UTF_8)));
      server.createContext(
          "/livez",
          exchange -> probe(exchange, endpoint.live.getAsBoolean(), "live", "shutting down"));
      server.createContext(
          "/readyz",
          exchange -> probe(exchange, endpoint.ready.getAsBoolean(), "ready", "not serving"));
      server.start();
      return endpoint;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind the metrics endpoint on port " + port, e);
    }
  }

  /** What {@code /livez} and {@code /readyz} report from now on. */
  void probes(BooleanSupplier liveness, BooleanSupplier readiness) {
    this.live = liveness;
    this.ready = readiness;
  }

  private static void probe(HttpExchange exchange, boolean ok, String yes, String no)
      throws IOException {
    if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
      answer(
          exchange,
          405,
          "text/plain; charset=utf-8",
          "GET only\n".getBytes(StandardCharsets.UTF_8));
      return;
    }
    answer(
        exchange,
        ok ? 200 : 503,
        "text/plain; charset=utf-8",
        ((ok ? yes : no) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private static void answer(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().add("Content-Type", type);
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      if (!head) {
        out.write(body);
      }
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
