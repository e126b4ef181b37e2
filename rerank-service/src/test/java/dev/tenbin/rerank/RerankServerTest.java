package dev.tenbin.rerank;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The rerank server's flags become its config record, model policy included. */
class RerankServerTest {
  private static RerankServiceConfig parse(String... args) {
    RerankServer server = new RerankServer();
    new CommandLine(server).parseArgs(args);
    return server.config();
  }

  @Test
  void byDefaultLocalCrossEncodersMayLoadHubDownloadsMayNotAndIdleOnesUnload() {
    RerankServiceConfig config = parse();
    assertThat(config.models().allow()).containsExactly("builtin:*", "local:*");
    assertThat(config.models().idleUnload()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void allowedModelsAndIdleTimeComeFromFlags() {
    RerankServiceConfig config = parse("--allow-models", "hub:cross-encoder/*,local:ms-*", "--model-idle-seconds", "30");
    assertThat(config.models().allow()).containsExactly("hub:cross-encoder/*", "local:ms-*");
    assertThat(config.models().idleUnload()).isEqualTo(Duration.ofSeconds(30));
  }
}
