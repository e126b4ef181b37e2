package dev.tenbin.eval.taskset;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Hugging Face hub on 127.0.0.1 with the two endpoints a dataset download uses: the revision API
 * and {@code resolve}. Each repository is a folder of files at one commit; branches name commits.
 * Every request is recorded.
 */
final class FakeHub implements AutoCloseable {
  /** A request as the hub saw it. */
  record Request(String path, String authorization) {}

  private record Repository(String sha, Path files) {}

  private final HttpServer server;
  private final Map<String, Repository> repositories = new ConcurrentHashMap<>();
  private final Map<String, String> branches = new ConcurrentHashMap<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();

  FakeHub() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * Publishes the files under {@code files} as {@code repository} at commit {@code sha}, branch
   * {@code branch}.
   */
  void publish(String repository, String branch, String sha, Path files) {
    repositories.put(repository, new Repository(sha, files));
    branches.put(repository + "@" + branch, sha);
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  void clearRequests() {
    requests.clear();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    requests.add(new Request(path, exchange.getRequestHeaders().getFirst("Authorization")));
    try (exchange) {
      if (path.startsWith("/api/datasets/")) {
        revision(exchange, path.substring("/api/datasets/".length()));
      } else if (path.startsWith("/datasets/")) {
        resolve(exchange, path.substring("/datasets/".length()));
      } else {
        send(exchange, 404, "{}".getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /** {@code owner/name/revision/REV}. */
  private void revision(HttpExchange exchange, String rest) throws IOException {
    String[] parts = rest.split("/revision/", 2);
    Repository repository = repositories.get(parts[0]);
    String sha =
        repository == null
            ? null
            : branches.getOrDefault(
                parts[0] + "@" + parts[1],
                parts[1].equals(repository.sha()) ? repository.sha() : null);
    if (sha == null) {
      send(exchange, 404, "{\"error\":\"Revision Not Found\"}".getBytes(StandardCharsets.UTF_8));
      return;
    }
    List<String> files;
    try (Stream<Path> walk = Files.walk(repository.files())) {
      files =
          walk.filter(Files::isRegularFile)
              .map(f -> repository.files().relativize(f).toString().replace('\\', '/'))
              .sorted()
              .toList();
    }
    String siblings =
        files.stream().map(f -> "{\"rfilename\":\"" + f + "\"}").collect(Collectors.joining(","));
    send(
        exchange,
        200,
        ("{\"id\":\"" + parts[0] + "\",\"sha\":\"" + sha + "\",\"siblings\":[" + siblings + "]}")
            .getBytes(StandardCharsets.UTF_8));
  }

  /** {@code owner/name/resolve/SHA/PATH}. */
  private void resolve(HttpExchange exchange, String rest) throws IOException {
    String[] parts = rest.split("/resolve/", 2);
    Repository repository = repositories.get(parts[0]);
    String[] shaAndPath = parts.length < 2 ? new String[] {""} : parts[1].split("/", 2);
    if (repository == null
        || shaAndPath.length < 2
        || !shaAndPath[0].equals(repository.sha())
        || !Files.isRegularFile(repository.files().resolve(shaAndPath[1]))) {
      send(exchange, 404, new byte[0]);
      return;
    }
    send(exchange, 200, Files.readAllBytes(repository.files().resolve(shaAndPath[1])));
  }

  private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** Paths of the requests, for readable assertions. */
  List<String> requestPaths() {
    List<String> paths = new ArrayList<>();
    requests.forEach(r -> paths.add(r.path()));
    return paths;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
