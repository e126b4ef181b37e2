package dev.tenbin.encoder.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.encoder.testing.TinyModels;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hub download against a fake hub on loopback: pinned revision, resolved SHA, cached once. */
class HubDownloaderTest {
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";
  @TempDir Path tmp;

  @Test
  void downloadsAPinnedRevisionOnceAndRecordsTheResolvedSha() throws Exception {
    Path source = TinyModels.dense(tmp.resolve("src"), "tiny", false);
    List<String> requests = new CopyOnWriteArrayList<>();
    HttpServer hub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hub.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          requests.add(path);
          byte[] body;
          if (path.equals("/api/models/acme/tiny/revision/v1.0")) {
            body = ("{\"id\":\"acme/tiny\",\"sha\":\"" + SHA + "\"}").getBytes(StandardCharsets.UTF_8);
          } else if (path.startsWith("/acme/tiny/resolve/" + SHA + "/")) {
            Path file = source.resolve(path.substring(("/acme/tiny/resolve/" + SHA + "/").length()));
            body = Files.exists(file) ? Files.readAllBytes(file) : null;
          } else {
            body = null;
          }
          if (body == null) {
            exchange.sendResponseHeaders(404, -1);
          } else {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    hub.start();
    try {
      String endpoint = "http://127.0.0.1:" + hub.getAddress().getPort();
      ModelRegistry registry = new ModelRegistry(null, new HubDownloader(endpoint, tmp.resolve("cache"), null));
      ModelFiles files = registry.load("hub:acme/tiny@v1.0");
      assertThat(files.card().resolvedSha()).isEqualTo(SHA);
      assertThat(files.card().revision()).isEqualTo("v1.0");
      assertThat(files.card().source()).isEqualTo("hub:acme/tiny@v1.0");
      assertThat(files.onnx()).isEqualTo(Files.readAllBytes(source.resolve("model.onnx")));
      assertThat(requests).contains("/acme/tiny/resolve/" + SHA + "/model.onnx");

      requests.clear();
      registry.load("hub:acme/tiny@" + SHA);
      assertThat(requests).as("a finished download pinned by SHA is never fetched again").isEmpty();
    } finally {
      hub.stop(0);
    }
  }

  @Test
  void hubModelsNeedAPinnedRevision() {
    assertThatThrownBy(() -> HubDownloader.Reference.parse("acme/tiny"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("pinned revision");
  }
}
