package dev.tenbin.testing.models;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Hugging Face hub on loopback for tests: {@code /api/models/{repo}/revision/{main|v1.0}} answers
 * {@link #SHA}, {@code /{repo}/resolve/{SHA}/{file}} the file's bytes, anything else 404. Every
 * request path is recorded ({@link #requests}).
 */
public final class FakeHub implements AutoCloseable {
  /** The commit every repository's "main" and "v1.0" resolve to. */
  public static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  /** Repository → file → bytes. */
  public final Map<String, Map<String, byte[]>> repositories = new ConcurrentHashMap<>();

  /** The paths requested, in order. */
  public final List<String> requests = new CopyOnWriteArrayList<>();

  private final HttpServer server;

  public FakeHub() {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          requests.add(path);
          byte[] body = null;
          for (var repository : repositories.entrySet()) {
            String name = repository.getKey();
            if (path.equals("/api/models/" + name + "/revision/v1.0")
                || path.equals("/api/models/" + name + "/revision/main")) {
              body =
                  ("{\"id\":\"" + name + "\",\"sha\":\"" + SHA + "\"}")
                      .getBytes(StandardCharsets.UTF_8);
            } else if (path.startsWith("/" + name + "/resolve/" + SHA + "/")) {
              body =
                  repository
                      .getValue()
                      .get(path.substring(("/" + name + "/resolve/" + SHA + "/").length()));
            }
          }
          if (body == null) {
            exchange.sendResponseHeaders(404, -1);
          } else {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    server.start();
  }

  /** A repository's files (added to, by tests, before it is downloaded). */
  public Map<String, byte[]> repository(String name) {
    return repositories.computeIfAbsent(name, key -> new ConcurrentHashMap<>());
  }

  /** The hub's base URL, e.g. {@code http://127.0.0.1:41234}. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
