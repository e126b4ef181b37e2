package dev.tenbin.encoder.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.testing.models.TinyModels;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server told to preload models says it is not ready until they are loaded and warmed up, then
 * ready; it never unloads them for idleness; a model that cannot be loaded stops it.
 */
class PreloadTest {
  @TempDir Path tmp;

  private EncoderServiceConfig config(List<String> preload) throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    EncoderServiceConfig base =
        EncoderServiceConfig.embedded(models, tmp.resolve("cache"))
            .withServer(
                new ServerSettings(
                    "127.0.0.1",
                    0,
                    0,
                    ServerSettings.DEFAULT_MAX_MESSAGE_BYTES,
                    Duration.ofSeconds(2)));
    // Idle unloading after a moment: a preloaded model must outlive it.
    return base.withHosting(
        base.hosting()
            .withPolicy(new ModelPolicy(ModelPolicy.DEFAULT_PATTERNS, Duration.ofMillis(200)))
            .withPreload(preload));
  }

  private static int status(int port, String path) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }

  private static void awaitReady(EncoderServer.Embedded server) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (status(server.host().metricsPort(), "/readyz") != 200) {
      assertThat(System.nanoTime()).as("ready within a minute").isLessThan(until);
      Thread.sleep(20);
    }
  }

  @Test
  void preloadedModelsAreLoadedBeforeTheServerSaysItIsReadyAndStayLoaded() throws Exception {
    try (EncoderServer.Embedded server = EncoderServer.start(config(List.of("tiny-dense")))) {
      assertThat(status(server.host().metricsPort(), "/livez")).isEqualTo(200);
      awaitReady(server);
      assertThat(server.core().loadedModels()).containsExactly("tiny-dense");
      Thread.sleep(600);
      assertThat(server.core().unloadIdleModels()).isEmpty();
      assertThat(server.core().loadedModels()).containsExactly("tiny-dense");
    }
  }

  @Test
  void aServerWithoutPreloadIsReadyAtOnceAndUnloadsIdleModels() throws Exception {
    try (EncoderServer.Embedded server = EncoderServer.start(config(List.of()))) {
      assertThat(status(server.host().metricsPort(), "/readyz")).isEqualTo(200);
      server.core().encodeDense("tiny-dense", List.of("apple"), true, 0, () -> false);
      Thread.sleep(600);
      server.core().unloadIdleModels();
      assertThat(server.core().loadedModels()).isEmpty();
    }
  }

  @Test
  void aModelThatCannotBePreloadedStopsTheServerNamingIt() throws Exception {
    try (EncoderServer.Embedded server = EncoderServer.start(config(List.of("no-such-model")))) {
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!server.preload().failed()) {
        assertThat(System.nanoTime()).isLessThan(until);
        Thread.sleep(20);
      }
      assertThat(server.preload().failure().getMessage()).contains("no-such-model");
      assertThat(server.host().isServing()).isFalse();
    }
  }
}
