package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1PodSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the chart asks of the tenbin image (commands, flags, HTTP paths) is listed in
 * src/test/resources/chart-cli-contract.txt; every flag the chart renders must be listed, and every
 * item marked "exists" must appear as a string literal in the project's main sources. Items marked
 * "pending" are being added to the services and are not checked yet.
 */
class CliContractTest {
  record Item(String status, String kind, String value) {}

  static List<Item> contract() throws IOException {
    try (InputStream in = CliContractTest.class.getResourceAsStream("/chart-cli-contract.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .filter(l -> !l.isBlank() && !l.startsWith("#"))
          .map(l -> l.trim().split("\\s+"))
          .map(p -> new Item(p[0], p[1], p[2]))
          .toList();
    }
  }

  /** Everything that starts with "--" in the args of every container the chart renders. */
  static Set<String> renderedFlags() {
    String everything =
        """
        encoder:
          preload: [m]
          http: {enabled: true}
        rerank:
          preload: [m]
        runJob:
          enabled: true
          spec: 'name: x'
        eval:
          datasets: {existingClaim: d}
        """;
    Set<String> flags = new TreeSet<>();
    List<List<Manifest>> renders = new ArrayList<>();
    for (String variant : ChartRenderingTest.VARIANTS) {
      if (!variant.equals("minimal")) {
        renders.add(Charts.renderWithTests(variant, everything));
      }
    }
    for (List<Manifest> manifests : renders) {
      for (Manifest m : manifests) {
        V1PodSpec spec = Charts.podSpec(m);
        if (spec == null) {
          continue;
        }
        for (V1Container c : spec.getContainers()) {
          for (String arg : c.getArgs() == null ? List.<String>of() : c.getArgs()) {
            if (arg.startsWith("--")) {
              flags.add(arg);
            }
          }
        }
      }
    }
    return flags;
  }

  @Test
  void everyFlagTheChartRendersIsInTheContract() throws IOException {
    Set<String> listed = new TreeSet<>();
    contract().stream().filter(i -> i.kind().equals("flag")).forEach(i -> listed.add(i.value()));
    assertThat(renderedFlags()).isSubsetOf(listed);
  }

  @Test
  void everyItemMarkedExistsIsInTheMainSources() throws IOException {
    Path root = Charts.K8S.getParent();
    StringBuilder sources = new StringBuilder();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f :
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.startsWith(root.resolve("k8s/tests")))
              .toList()) {
        sources.append(Files.readString(f)).append('\n');
      }
    }
    String all = sources.toString();
    List<String> missing = new ArrayList<>();
    for (Item item : contract()) {
      if (item.status().equals("exists") && !all.contains("\"" + item.value() + "\"")) {
        missing.add(item.kind() + " " + item.value());
      }
    }
    assertThat(missing).as("marked exists, not found as a literal in */src/main/java").isEmpty();
  }
}
