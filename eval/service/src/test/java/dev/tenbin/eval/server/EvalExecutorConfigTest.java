package dev.tenbin.eval.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.shard.kubernetes.IndexedJobSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The eval service's {@code --executor kubernetes} options: checked at start with a message naming
 * the flag, and turned into the pods' Secrets, claims and service flags.
 */
class EvalExecutorConfigTest {
  @TempDir Path tmp;

  private EvalServer parse(String... args) {
    EvalServer server = new EvalServer();
    new CommandLine(server).parseArgs(args);
    return server;
  }

  @Test
  void inlineIsTheDefaultAndNeedsNoClusterOptions() {
    EvalExecutorConfig config = parse().executorConfig();
    assertThat(config.kubernetes()).isFalse();
    assertThatThrownBy(() -> parse("--executor", "local").executorConfig())
        .hasMessageContaining("--executor must be inline or kubernetes, got 'local'");
  }

  @Test
  void kubernetesNeedsAnImageAResultsClaimAndTheSecretsOfTheServicesSecurity() throws Exception {
    assertThatThrownBy(() -> parse("--executor", "kubernetes").executorConfig())
        .hasMessageContaining("--image is required");
    assertThatThrownBy(
            () -> parse("--executor", "kubernetes", "--image", "tenbin:1").executorConfig())
        .hasMessageContaining("--results-pvc is required");
    assertThatThrownBy(
            () ->
                parse(
                        "--executor",
                        "kubernetes",
                        "--image",
                        "tenbin:1",
                        "--results-pvc",
                        "r",
                        "--parallelism",
                        "0")
                    .executorConfig())
        .hasMessageContaining("--parallelism must be at least 1");
    Path ca = Files.writeString(tmp.resolve("ca.crt"), "x");
    assertThatThrownBy(
            () ->
                parse(
                        "--executor",
                        "kubernetes",
                        "--image",
                        "tenbin:1",
                        "--results-pvc",
                        "r",
                        "--service-tls-ca",
                        ca.toString())
                    .executorConfig())
        .hasMessageContaining("--pod-tls-secret is required");
    Path token = Files.writeString(tmp.resolve("token"), "t");
    assertThatThrownBy(
            () ->
                parse(
                        "--executor",
                        "kubernetes",
                        "--image",
                        "tenbin:1",
                        "--results-pvc",
                        "r",
                        "--service-auth-token-file",
                        token.toString())
                    .executorConfig())
        .hasMessageContaining("--pod-auth-secret is required");
  }

  @Test
  void thePodsMountTheServicesSecretsAndGetItsEndpointsAndFlagsUnderTheirPaths() throws Exception {
    Path ca = Files.writeString(tmp.resolve("ca.crt"), "x");
    Path token = Files.writeString(tmp.resolve("token"), "t");
    Path data = Files.createDirectories(tmp.resolve("data"));
    EvalServiceConfig config =
        parse(
                "--state-dir", tmp.resolve("state").toString(),
                "--data-root", data.toString(),
                "--models-dir", tmp.toString(),
                "--executor", "kubernetes",
                "--namespace", "tenbin",
                "--parallelism", "3",
                "--image", "tenbin:1",
                "--results-pvc", "results",
                "--pod-tls-secret", "tenbin-tls",
                "--pod-auth-secret", "tenbin-token",
                "--pod-datasets-pvc", "datasets",
                "--pod-hub-secret", "tenbin-hf",
                "--pod-hub-endpoint", "http://hub-mirror.internal",
                "--service-tls-ca", ca.toString(),
                "--service-auth-token-file", token.toString(),
                "--encoder-endpoint", "dns:///tenbin-encoder-headless:50051",
                "--index-pods", "tenbin-index-0.h:50052,tenbin-index-1.h:50052")
            .config();
    var settings = KubernetesExecution.settings(config);
    assertThat(settings.parallelism()).isEqualTo(3);
    assertThat(settings.hub())
        .isEqualTo(new IndexedJobSettings.PodHub("tenbin-hf", "http://hub-mirror.internal"));
    assertThat(settings.resultsRoot()).isEqualTo(tmp.resolve("state/results"));
    assertThat(settings.mounts())
        .containsExactly(
            new IndexedJobSettings.Mount(
                "tls", IndexedJobSettings.Source.SECRET, "tenbin-tls", "/etc/tenbin/tls"),
            new IndexedJobSettings.Mount(
                "auth", IndexedJobSettings.Source.SECRET, "tenbin-token", "/etc/tenbin/auth"),
            new IndexedJobSettings.Mount(
                "datasets", IndexedJobSettings.Source.CLAIM, "datasets", data.toString()));
    assertThat(settings.podArgs())
        .containsExactly(
            "--index-pods",
            "tenbin-index-0.h:50052,tenbin-index-1.h:50052",
            "--encoder-endpoint",
            "dns:///tenbin-encoder-headless:50051",
            "--service-tls-ca",
            "/etc/tenbin/tls/ca.crt",
            "--service-auth-token-file",
            "/etc/tenbin/auth/token");
  }
}
