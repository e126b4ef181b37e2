package dev.tenbin.eval.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.job.JobManager;
import dev.tenbin.rpc.HostPort;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The eval service's options become one checked config record (folders, services, network); a
 * started service releases its job table when it stops.
 */
class EvalServerOptionsTest {
  @TempDir Path tmp;

  private static EvalServer parse(String... args) {
    EvalServer server = new EvalServer();
    new CommandLine(server).parseArgs(args);
    return server;
  }

  @Test
  void dataRootsRepeatAndSplitOnThePathSeparatorAndTheResultsRootDefaultsUnderTheState() {
    var folders =
        parse("--state-dir", "/srv/eval", "--data-root", "/d/a:/d/b", "--data-root", "/d/c")
            .folders();
    assertThat(folders.dataRoots())
        .containsExactly(Path.of("/d/a"), Path.of("/d/b"), Path.of("/d/c"));
    assertThat(folders.stateDirectory()).isEqualTo(Path.of("/srv/eval"));
    assertThat(folders.resultsRoot()).isEqualTo(Path.of("/srv/eval/results"));
    assertThat(parse("--results-root", "/r").folders().resultsRoot()).isEqualTo(Path.of("/r"));
  }

  @Test
  void withoutDataRootsLocalDatasetsAreRefusedAsTheHelpSays() {
    assertThat(parse().folders().dataRoots()).isEqualTo(List.of());
    String help = new CommandLine(new EvalServer()).getUsageMessage();
    assertThat(help)
        .contains("--data-root")
        .contains("--results-root")
        .contains("--state-dir")
        .contains("refused");
  }

  @Test
  void everyOptionLandsInTheConfigRecord() throws Exception {
    Path data = Files.createDirectories(tmp.resolve("data"));
    EvalServiceConfig config =
        parse(
                "--port",
                "7100",
                "--state-dir",
                tmp.resolve("state").toString(),
                "--data-root",
                data.toString(),
                "--index-endpoint",
                "[::1]:6001",
                "--encoder-endpoint",
                "encoder:6002",
                "--models-dir",
                "/m",
                "--cache-dir",
                "/c")
            .config();
    assertThat(config.server().port()).isEqualTo(7100);
    assertThat(config.folders().dataRoots()).containsExactly(data);
    assertThat(config.folders().stateDirectory()).isEqualTo(tmp.resolve("state"));
    assertThat(new HostPort(config.services().index().host(), config.services().index().port()))
        .isEqualTo(new HostPort("::1", 6001));
    assertThat(config.services().encoder().toString()).isEqualTo("encoder:6002");
    assertThat(config.services().rerank()).as("embedded unless given").isNull();
    assertThat(config.services().modelsDirectory()).isEqualTo(Path.of("/m"));
    assertThat(config.services().cacheDirectory()).isEqualTo(Path.of("/c"));
    assertThat(parse().config().server().port()).isEqualTo(EvalServiceConfig.DEFAULT_PORT);
  }

  @Test
  void statelessServicesMayBeBalancedAndTheIndexGivenAsItsPods() {
    EvalServiceConfig config =
        parse(
                "--index-pods",
                "tenbin-index-0.tenbin-index-headless:50052,tenbin-index-1.tenbin-index-headless:50052",
                "--encoder-endpoint",
                "dns:///tenbin-encoder-headless:50051",
                "--rerank-endpoint",
                "dns:///tenbin-rerank-headless:50053")
            .config();
    assertThat(config.services().index().placed()).isTrue();
    assertThat(config.services().index().toString())
        .isEqualTo(
            "tenbin-index-0.tenbin-index-headless:50052,tenbin-index-1.tenbin-index-headless:50052");
    assertThat(config.services().encoder().target().balanced()).isTrue();
    assertThat(config.services().rerank().toString())
        .isEqualTo("dns:///tenbin-rerank-headless:50053");
    assertThatThrownBy(
            () -> parse("--index-endpoint", "dns:///tenbin-index-headless:50052").config())
        .hasMessageContaining("--index-endpoint must be HOST:PORT")
        .hasMessageContaining("--index-pods");
    assertThatThrownBy(
            () -> parse("--index-endpoint", "index:1", "--index-pods", "a:1,b:1").config())
        .hasMessageContaining("not both");
  }

  @Test
  void badValuesAreRefusedAtStartNamingTheFlag() throws Exception {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    assertThatThrownBy(() -> parse("--data-root", tmp.resolve("missing").toString()).config())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--data-root " + tmp.resolve("missing") + " is not a folder");
    assertThatThrownBy(() -> parse("--state-dir", file.toString()).config())
        .hasMessageContaining("--state-dir " + file + " is not a folder");
    assertThatThrownBy(() -> parse("--results-root", file.toString()).config())
        .hasMessageContaining("--results-root " + file + " is not a folder");
    assertThatThrownBy(() -> parse("--rerank-endpoint", "rerank").config())
        .hasMessageContaining("--rerank-endpoint is missing its port");
    assertThatThrownBy(() -> parse("--port", "-1").config())
        .hasMessageContaining("--port must be within 0..65535");
    assertThatThrownBy(() -> parse("--default-shards", "0").config())
        .hasMessageContaining("--default-shards must be within 1..64, got 0");
    assertThat(parse("--default-shards", "4").config().defaultShards()).isEqualTo(4);
    assertThat(parse().config().defaultShards()).isEqualTo(1);
    assertThatThrownBy(() -> parse("--default-replicas", "9").config())
        .hasMessageContaining("--default-replicas must be within 1..8, got 9");
    assertThat(parse("--default-replicas", "2").config().defaultReplicas()).isEqualTo(2);
    assertThat(parse().config().defaultReplicas()).isEqualTo(1);
    assertThatThrownBy(() -> parse("--http-port", "70000").config())
        .hasMessageContaining("--http-port must be -1 (off) or within 0..65535, got 70000");
    assertThat(parse("--http-port", "8081").config().httpPort()).isEqualTo(8081);
  }

  @Test
  void aStoppedServiceHasReleasedItsJobTable() {
    EvalServiceConfig config =
        parse("--port", "0", "--metrics-port", "-1", "--state-dir", tmp.resolve("state").toString())
            .config();
    EvalServer.Running running = EvalServer.start(config);
    try {
      assertThatThrownBy(
              () -> JobManager.open(config.folders(), (job, listener, cancellation) -> null))
          .as("the running service holds the job table")
          .isInstanceOf(dev.tenbin.core.PreconditionException.class)
          .hasMessageContaining("another eval service uses the state folder");
      running.host().close();
      JobManager.open(config.folders(), (job, listener, cancellation) -> null).close();
    } finally {
      running.close();
    }
  }
}
