package dev.tenbin.rpc;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** Serves the Prometheus text exposition of a registry at {@code /metrics}. */
public final class MetricsHttpServer implements AutoCloseable {
  private final HttpServer server;

  private MetricsHttpServer(HttpServer server) {
    this.server = server;
  }

  public static MetricsHttpServer start(String host, int port, PrometheusMeterRegistry registry) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
      server.createContext(
          "/metrics",
          exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange
                .getResponseHeaders()
                .add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
      return new MetricsHttpServer(server);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind the metrics endpoint on port " + port, e);
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
