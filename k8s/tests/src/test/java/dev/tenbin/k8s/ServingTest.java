package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Container;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Defect 6: models to load at start (--preload ID, repeated) and the idle unload time
 * (--model-idle-seconds, which preloaded models ignore) for the encoder and rerank servers.
 */
class ServingTest {
  private static List<String> values(V1Container c, String flag) {
    List<String> out = new ArrayList<>();
    List<String> args = c.getArgs();
    for (int i = 0; i < args.size() - 1; i++) {
      if (args.get(i).equals(flag)) {
        out.add(args.get(i + 1));
      }
    }
    return out;
  }

  @Test
  void nothingIsPreloadedByDefaultAndIdleModelsUnloadAfterTenMinutes() {
    List<Manifest> manifests = Charts.render("");
    for (String component : List.of("encoder", "rerank")) {
      V1Container server = Charts.server(manifests, component);
      assertThat(server.getArgs()).doesNotContain("--preload");
      assertThat(Charts.arg(server, "--model-idle-seconds")).isEqualTo("600");
    }
  }

  @Test
  void preloadListsBecomeRepeatedPreloadFlags() {
    List<Manifest> manifests =
        Charts.render(
            """
            encoder:
              preload: [bge-small-en-v1.5, "hub:BAAI/bge-m3@5617a9f61b028005a4858fdac845db406aefb181"]
              idleUnloadSeconds: 0
            rerank:
              preload: [ms-marco-MiniLM-L-6-v2]
              idleUnloadSeconds: 120
            """);
    V1Container encoder = Charts.server(manifests, "encoder");
    assertThat(values(encoder, "--preload"))
        .containsExactly(
            "bge-small-en-v1.5", "hub:BAAI/bge-m3@5617a9f61b028005a4858fdac845db406aefb181");
    assertThat(Charts.arg(encoder, "--model-idle-seconds")).isEqualTo("0");
    V1Container rerank = Charts.server(manifests, "rerank");
    assertThat(values(rerank, "--preload")).containsExactly("ms-marco-MiniLM-L-6-v2");
    assertThat(Charts.arg(rerank, "--model-idle-seconds")).isEqualTo("120");
    assertThat(Charts.server(manifests, "index").getArgs()).doesNotContain("--preload");
  }

  @Test
  void aPreloadEntryMustBeANonEmptyStringAndAppearOnce() {
    assertThat(Charts.failure("encoder:\n  preload: [a, a]\n")).contains("encoder.preload");
    assertThat(Charts.failure("rerank:\n  preload: [\"\"]\n")).contains("rerank.preload.0");
    assertThat(Charts.failure("encoder:\n  idleUnloadSeconds: -1\n"))
        .contains("encoder.idleUnloadSeconds");
  }
}
