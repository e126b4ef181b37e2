package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import dev.tenbin.k8s.Manifests.Manifest;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Renders k8s/helm/tenbin through helm-java with ci/ values files and inline YAML values (written
 * to a temporary values file, so multi-line strings and lists keep their types), and finds objects
 * in the result. Every rendered object goes through {@link Manifests#parse}, i.e. strict
 * validation.
 */
final class Charts {
  static final Path K8S = Path.of("..").toAbsolutePath().normalize();
  static final Path CHART = K8S.resolve("helm/tenbin");
  static final String RELEASE = "tb";

  private Charts() {}

  /** `helm template` of {@code chart}: the ci/ values files named, then the inline YAML. */
  static String template(Path chart, String release, List<String> ciValues, String yaml) {
    var template = new Helm(chart).template().withName(release).withNamespace("tenbin");
    for (String name : ciValues) {
      template = template.withValuesFile(CHART.resolve("ci/" + name + "-values.yaml"));
    }
    if (yaml != null && !yaml.isBlank()) {
      template = template.withValuesFile(valuesFile(yaml));
    }
    return template.call();
  }

  /** Objects of the chart with these inline values (on top of values.yaml). */
  static List<Manifest> render(String yaml) {
    return Manifests.parse(template(CHART, RELEASE, List.of(), yaml));
  }

  /** Objects of the chart with a ci/ values file ("default": none) and inline values. */
  static List<Manifest> renderCi(String ciValues, String yaml) {
    List<String> files = ciValues.equals("default") ? List.of() : List.of(ciValues);
    return Manifests.parse(template(CHART, RELEASE, files, yaml));
  }

  /** The message of the failure these values cause; fails the test when they render. */
  static String failure(String yaml) {
    try {
      String out = template(CHART, RELEASE, List.of(), yaml);
      throw new AssertionError("rendered, expected a failure for values:\n" + yaml + "\n" + out);
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
  }

  /**
   * Objects of the chart including its `helm test` pods. helm-java's template prints the release's
   * manifest without hooks, so this renders a copy of the chart whose test hooks are renamed into
   * plain annotations ({@code tenbin.dev/helm-hook...}); the pods are otherwise as rendered.
   */
  static List<Manifest> renderWithTests(String ciValues, String yaml) {
    Path copy = copyWithTestHooksUnhooked();
    try {
      List<String> files = ciValues.equals("default") ? List.of() : List.of(ciValues);
      return Manifests.parse(template(copy, RELEASE, files, yaml));
    } finally {
      deleteTree(copy);
    }
  }

  /**
   * The NOTES of an install (helm-java's client-only dry run) with a ci/ values file and inline
   * values.
   */
  static String notes(String ciValues, String yaml) {
    var install =
        new Helm(CHART).install().withName(RELEASE).withNamespace("tenbin").clientOnly().dryRun();
    if (!ciValues.equals("default")) {
      install = install.withValuesFile(CHART.resolve("ci/" + ciValues + "-values.yaml"));
    }
    if (yaml != null && !yaml.isBlank()) {
      install = install.withValuesFile(valuesFile(yaml));
    }
    String out = install.call().getOutput();
    return out.substring(out.indexOf("NOTES:"));
  }

  static Path valuesFile(String yaml) {
    try {
      Path file = Files.createTempFile("tenbin-values-", ".yaml");
      file.toFile().deleteOnExit();
      Files.writeString(file, yaml, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path copyWithTestHooksUnhooked() {
    try {
      Path target = Files.createTempDirectory("tenbin-chart-");
      Path chart = target.resolve("tenbin");
      try (Stream<Path> files = Files.walk(CHART)) {
        for (Path source : files.toList()) {
          Path to = chart.resolve(CHART.relativize(source).toString());
          if (Files.isDirectory(source)) {
            Files.createDirectories(to);
          } else if (source.startsWith(CHART.resolve("templates/tests"))) {
            String text = Files.readString(source);
            assertThat(text).as(source + " is a helm test hook").contains("helm.sh/hook: test");
            Files.writeString(to, text.replace("helm.sh/hook", "tenbin.dev/helm-hook"));
          } else {
            Files.copy(source, to);
          }
        }
      }
      return chart;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path chart) {
    try (Stream<Path> files = Files.walk(chart.getParent())) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The one object of this type ending in "Kind" and name. */
  static Manifest find(List<Manifest> manifests, String kind, String name) {
    return manifests.stream()
        .filter(m -> m.type().endsWith("/" + kind) && m.name().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no " + kind + " " + name + " in " + names(manifests)));
  }

  static List<String> names(List<Manifest> manifests) {
    return manifests.stream().map(m -> m.type() + " " + m.name()).toList();
  }

  static V1Deployment deployment(List<Manifest> manifests, String name) {
    return find(manifests, "Deployment", name).as(V1Deployment.class);
  }

  static V1PodSpec podSpec(List<Manifest> manifests, String component) {
    return podSpec(
        manifests.stream()
            .filter(m -> m.name().equals(RELEASE + "-tenbin-" + component))
            .filter(m -> podSpec(m) != null)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no workload " + component)));
  }

  static V1Container server(List<Manifest> manifests, String component) {
    return podSpec(manifests, component).getContainers().getFirst();
  }

  /** The pod spec of a workload (Deployment, StatefulSet, Job, Pod); null for other objects. */
  static V1PodSpec podSpec(Manifest m) {
    return switch (m.model()) {
      case V1Deployment d -> d.getSpec().getTemplate().getSpec();
      case V1StatefulSet s -> s.getSpec().getTemplate().getSpec();
      case V1Job j -> j.getSpec().getTemplate().getSpec();
      case V1Pod p -> p.getSpec();
      case null, default -> null;
    };
  }

  /** The pod specs of the four servers (Deployments and the StatefulSet). */
  static List<V1PodSpec> serverPodSpecs(List<Manifest> manifests) {
    List<V1PodSpec> specs = new ArrayList<>();
    for (Manifest m : manifests) {
      if (m.model() instanceof V1Deployment || m.model() instanceof V1StatefulSet) {
        specs.add(podSpec(m));
      }
    }
    return specs;
  }

  /** The value following {@code flag} in the container's args. */
  static String arg(V1Container container, String flag) {
    List<String> args = container.getArgs();
    int at = args.indexOf(flag);
    assertThat(at).as(flag + " in " + args).isNotNegative();
    return args.get(at + 1);
  }

  /** Every lower-case Prometheus-style tenbin_* name in {@code text}. */
  static List<String> tenbinMetricNames(String text) {
    List<String> names = new ArrayList<>();
    var m = Pattern.compile("(?<![A-Za-z0-9_])tenbin_[a-z0-9_]+").matcher(text);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }
}
