package dev.tenbin.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.model.hub.HubAccess;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

class ModelSourcesTest {
  @Command(name = "server")
  static final class Server {
    @Mixin ModelSourceOptions sources = new ModelSourceOptions();
  }

  private static ModelSources parse(String... args) {
    Server server = new Server();
    new CommandLine(server).parseArgs(args);
    return server.sources.toSources();
  }

  @Test
  void theSharedFlagsBecomeOneRecord() {
    ModelSources sources =
        parse("--models-dir", "/m", "--cache-dir", "/c", "--hub-endpoint", "http://mirror:8080");
    assertThat(sources.modelsDirectory()).isEqualTo(Path.of("/m"));
    assertThat(sources.cacheDirectory()).isEqualTo(Path.of("/c"));
    assertThat(sources.hub().endpoint()).isEqualTo("http://mirror:8080");
  }

  @Test
  void aMissingFolderOrHubIsRefusedNamingItsFlag() {
    HubAccess hub = HubAccess.anonymous();
    assertThatThrownBy(() -> new ModelSources(null, Path.of("/c"), hub))
        .hasMessageContaining("--models-dir");
    assertThatThrownBy(() -> new ModelSources(Path.of("/m"), null, hub))
        .hasMessageContaining("--cache-dir");
    assertThatThrownBy(() -> new ModelSources(Path.of("/m"), Path.of("/c"), null))
        .hasMessageContaining("--hub-endpoint");
    assertThatThrownBy(() -> parse("--hub-endpoint", "ftp://hub"))
        .hasMessageContaining("--hub-endpoint");
  }

  @Test
  void anotherHubEndpointKeepsTheTokenAndTheFolders() {
    ModelSources sources =
        new ModelSources(Path.of("/m"), Path.of("/c"), new HubAccess("https://hub.one", "secret"))
            .withHubEndpoint("https://hub.two");
    assertThat(sources.hub()).isEqualTo(new HubAccess("https://hub.two", "secret"));
    assertThat(sources.modelsDirectory()).isEqualTo(Path.of("/m"));
    assertThat(sources.cacheDirectory()).isEqualTo(Path.of("/c"));
  }
}
