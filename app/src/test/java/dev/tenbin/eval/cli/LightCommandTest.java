package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin light build}: the encoder, local or remote, builds the cache where it keeps its
 * caches.
 */
class LightCommandTest {
  @TempDir Path tmp;

  @Test
  void aRemoteEncoderBuildsTheCacheInItsOwnCacheDirectory() throws Exception {
    Path encoderModels = tmp.resolve("encoder-models");
    TinyModels.dense(encoderModels, "tiny-dense", false);
    Path encoderCache = tmp.resolve("encoder-cache");
    Path cliCache = tmp.resolve("cli-cache");
    try (EncoderCore core =
            new EncoderCore(EncoderServiceConfig.embedded(encoderModels, encoderCache));
        GrpcServerHost host =
            GrpcServerHost.start(
                new ServerSettings(
                    "127.0.0.1",
                    0,
                    -1,
                    ServerSettings.DEFAULT_MAX_MESSAGE_BYTES,
                    Duration.ofSeconds(1)),
                EncoderServer.services(core))) {
      CliRunner run =
          CliRunner.run(
              "light",
              "build",
              "--model",
              "tiny-dense",
              "--encoder-endpoint",
              "127.0.0.1:" + host.port(),
              "--models-dir",
              tmp.resolve("no-models").toString(),
              "--cache-dir",
              cliCache.toString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.err())
          .contains(
              "tenbin: cache of tiny-dense: "
                  + TinyModels.VOCABULARY
                  + " x "
                  + TinyModels.HIDDEN
                  + " fp32 in "
                  + encoderCache);
      // Not a terminal: the progress is whole lines, the last one the whole vocabulary, no '\r'.
      assertThat(run.err())
          .contains(
              "tenbin: LightRetriever tokens encoded: "
                  + TinyModels.VOCABULARY
                  + "/"
                  + TinyModels.VOCABULARY
                  + "\n")
          .doesNotContain("\r");
      try (var files = Files.walk(encoderCache.resolve("light"))) {
        assertThat(files.filter(p -> p.getFileName().toString().equals("manifest.json")))
            .hasSize(1);
      }
      assertThat(cliCache.resolve("light")).doesNotExist();

      CliRunner narrow =
          CliRunner.run(
              "light",
              "build",
              "--model",
              "tiny-dense",
              "--int8",
              "--dimensions",
              "4",
              "--encoder-endpoint",
              "127.0.0.1:" + host.port(),
              "--models-dir",
              tmp.resolve("no-models").toString(),
              "--cache-dir",
              cliCache.toString());
      assertThat(narrow.exitCode()).as(narrow.err()).isZero();
      assertThat(narrow.err())
          .contains("tenbin: cache of tiny-dense: " + TinyModels.VOCABULARY + " x 4 int8 in ");
      try (var files = Files.walk(encoderCache.resolve("light"))) {
        assertThat(files.filter(p -> p.getFileName().toString().equals("manifest.json")))
            .as("the Matryoshka table is a second cache beside the full-width one")
            .hasSize(2);
      }
    }
  }

  @Test
  void fp16AndInt8TogetherAreAUsageError() {
    CliRunner run = CliRunner.run("light", "build", "--model", "m", "--fp16", "--int8");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("choose one of --fp16 and --int8");
  }
}
