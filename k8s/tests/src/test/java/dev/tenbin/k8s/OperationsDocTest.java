package dev.tenbin.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import dev.tenbin.k8s.Manifests.Manifest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * docs/operations.md marks each shell block that runs without a cluster with {@code <!-- runnable
 * -->} on the line before it. Every command in those blocks is run here: with the {@code helm} or
 * {@code kubectl} binary when it is on PATH, otherwise {@code helm template} and {@code helm lint}
 * through helm-java (a command with an option this test does not know fails, so the doc cannot
 * drift into untested syntax) and {@code kubectl kustomize} is skipped. Rendered output is
 * validated strictly against the Kubernetes API models.
 */
class OperationsDocTest {
  static final Path ROOT = Charts.K8S.getParent();
  static final Path DOC = ROOT.resolve("docs/operations.md");
  static final String MARKER = "<!-- runnable -->";

  /** The commands of the runnable blocks, continuation lines joined. */
  static List<String> runnableCommands() throws IOException {
    List<String> lines = Files.readAllLines(DOC);
    List<String> commands = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).trim().equals(MARKER)) {
        continue;
      }
      assertThat(lines.get(i + 1)).as("line after the marker at " + (i + 1)).isEqualTo("```sh");
      StringBuilder command = new StringBuilder();
      for (int j = i + 2; !lines.get(j).equals("```"); j++) {
        String line = lines.get(j);
        if (line.isBlank() || line.trim().startsWith("#")) {
          continue;
        }
        if (line.endsWith("\\")) {
          command.append(line, 0, line.length() - 1).append(' ');
        } else {
          commands.add(command.append(line).toString().trim().replaceAll("\\s+", " "));
          command.setLength(0);
        }
      }
    }
    return commands;
  }

  @Test
  void theDocMarksCommandsOfEveryKindItDescribes() throws IOException {
    List<String> commands = runnableCommands();
    assertThat(commands).hasSizeGreaterThanOrEqualTo(10);
    assertThat(commands).anyMatch(c -> c.startsWith("helm template"));
    assertThat(commands).anyMatch(c -> c.startsWith("helm lint"));
    assertThat(commands).anyMatch(c -> c.startsWith("kubectl kustomize"));
    assertThat(Files.readString(DOC))
        .as("docs describe the chart as it is")
        .doesNotContainIgnoringCase("session")
        .doesNotContain("0.1.0-SNAPSHOT");
  }

  @TestFactory
  Stream<DynamicTest> everyRunnableCommandRunsAndRendersStrictlyValidObjects() throws IOException {
    return runnableCommands().stream().map(c -> DynamicTest.dynamicTest(c, () -> run(c)));
  }

  static void run(String command) throws Exception {
    List<String> words = words(command);
    String tool = words.getFirst();
    if (onPath(tool)) {
      String out = shell(command);
      if (!command.startsWith("helm lint")) {
        assertThat(Manifests.parse(out)).as(command).isNotEmpty();
      }
      return;
    }
    switch (tool) {
      case "helm" -> helmJava(command, words);
      case "kubectl" -> Assumptions.abort("kubectl is not installed: " + command);
      default -> throw new AssertionError("not a command this test runs: " + command);
    }
  }

  private static void helmJava(String command, List<String> words) {
    String verb = words.get(1);
    List<String> positional = new ArrayList<>();
    if (verb.equals("lint")) {
      boolean strict = false;
      for (String w : words.subList(2, words.size())) {
        if (w.equals("--strict")) {
          strict = true;
        } else if (w.startsWith("-")) {
          throw new AssertionError("unknown helm lint option " + w + " in: " + command);
        } else {
          positional.add(w);
        }
      }
      assertThat(positional).hasSize(1);
      var lint = new Helm(ROOT.resolve(positional.getFirst())).lint();
      var result = (strict ? lint.strict() : lint).call();
      assertThat(result.isFailed()).as(String.join("\n", result.getMessages())).isFalse();
      return;
    }
    assertThat(verb).as(command).isEqualTo("template");
    List<String[]> sets = new ArrayList<>();
    List<Path> valuesFiles = new ArrayList<>();
    String namespace = null;
    for (int i = 2; i < words.size(); i++) {
      String w = words.get(i);
      switch (w) {
        case "--set" -> sets.add(words.get(++i).split("=", 2));
        case "-f", "--values" -> valuesFiles.add(ROOT.resolve(words.get(++i)));
        case "-n", "--namespace" -> namespace = words.get(++i);
        default -> {
          if (w.startsWith("-")) {
            throw new AssertionError("unknown helm template option " + w + " in: " + command);
          }
          positional.add(w);
        }
      }
    }
    assertThat(positional).as("RELEASE CHART in " + command).hasSize(2);
    var template = new Helm(ROOT.resolve(positional.get(1))).template().withName(positional.get(0));
    if (namespace != null) {
      template = template.withNamespace(namespace);
    }
    for (Path file : valuesFiles) {
      assertThat(file).as(command).exists();
      template = template.withValuesFile(file);
    }
    for (String[] set : sets) {
      template = template.set(set[0], set[1]);
    }
    List<Manifest> manifests = Manifests.parse(template.call());
    assertThat(manifests).as(command).isNotEmpty();
  }

  /** Splits a command line into words: whitespace-separated, single and double quotes grouping. */
  static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    boolean inWord = false;
    for (char c : line.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }

  private static boolean onPath(String tool) {
    try {
      List<String> version =
          tool.equals("kubectl") ? List.of(tool, "version", "--client") : List.of(tool, "version");
      Process p = new ProcessBuilder(version).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static String shell(String command) throws Exception {
    Process p =
        new ProcessBuilder("bash", "-c", command)
            .directory(ROOT.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(command).isTrue();
    assertThat(p.exitValue()).as(command).isZero();
    return out;
  }
}
