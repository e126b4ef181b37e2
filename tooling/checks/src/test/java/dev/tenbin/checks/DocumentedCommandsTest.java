package dev.tenbin.checks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.bench.BenchCli;
import dev.tenbin.drill.DrillCli;
import dev.tenbin.eval.cli.TenbinCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The documentation cannot name a flag the CLI does not have: every {@code tenbin …} command line
 * in README.md, docs/, the samples' and k8s' READMEs (code blocks and inline code) is resolved
 * against the CLI's own command tree — the subcommands it names, down to the one that runs — and
 * each {@code --flag} it gives must be an option of that command, as {@code tenbin … --help} lists
 * them. (The commands the docs mark runnable are run by {@code .ci/doc-commands-test}.)
 */
class DocumentedCommandsTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

  /** A command, as written, and where. */
  record Written(String where, String line) {}

  private static final Pattern FENCE = Pattern.compile("(?s)```[a-z]*\\n(.*?)```");
  private static final Pattern INLINE = Pattern.compile("`([^`\\n]*tenbin [^`\\n]*)`");
  private static final Pattern TENBIN = Pattern.compile("^(?:\\./)?tenbin$");

  static List<Path> documents() throws IOException {
    List<Path> documents = new ArrayList<>();
    documents.add(ROOT.resolve("README.md"));
    documents.add(ROOT.resolve("samples/README.md"));
    documents.add(ROOT.resolve("k8s/README.md"));
    documents.add(ROOT.resolve("BENCHMARKS.md"));
    documents.add(ROOT.resolve("RELIABILITY.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    return documents;
  }

  static List<Written> commands(Path document) throws IOException {
    String text = Files.readString(document);
    List<Written> out = new ArrayList<>();
    Matcher fence = FENCE.matcher(text);
    while (fence.find()) {
      // A backslash at a line's end continues the command on the next line.
      for (String line : fence.group(1).replace("\\\n", " ").split("\n")) {
        out.add(new Written(ROOT.relativize(document).toString(), line));
      }
    }
    Matcher inline = INLINE.matcher(fence.replaceAll(""));
    while (inline.find()) {
      out.add(new Written(ROOT.relativize(document).toString(), inline.group(1)));
    }
    return out;
  }

  /**
   * The command trees, built once: a line is resolved against them read-only, and building a tree
   * (annotations read by reflection) costs far more than resolving a line.
   */
  private static final Map<String, CommandLine> TREES = new HashMap<>();

  private static CommandLine tree(String name, Supplier<CommandLine> build) {
    return TREES.computeIfAbsent(name, unused -> build.get());
  }

  /** The options a documented line gives a tenbin command it does not have; empty when none. */
  static synchronized List<String> unknownFlags(String line) {
    List<String> problems = new ArrayList<>();
    // Shell separators end a command; each piece may hold one.
    // A second "./tenbin" on one line (a synopsis listing several commands) starts another.
    String separated = line.replaceAll("\\s(?=\\./tenbin\\s)", " ; ");
    for (String piece : separated.split("&&|\\|\\||;|\\||(?<![>2])&(?!&)|\\$\\(|\\)")) {
      String[] tokens = piece.trim().split("\\s+");
      // The command is tenbin's when it comes first (after environment assignments, if any).
      int start = 0;
      while (start < tokens.length && tokens[start].matches("[A-Z_][A-Z0-9_]*=\\S*")) {
        start++;
      }
      if (start >= tokens.length || !TENBIN.matcher(tokens[start]).matches()) {
        continue;
      }
      CommandLine command = tree("tenbin", TenbinCli::commandLine);
      int i = start + 1;
      String path = "tenbin";
      boolean elided = false;
      while (i < tokens.length) {
        String token = tokens[i].replaceAll("^[\\[(]+|[\\])]+$", "");
        if (token.contains("...") || token.contains("\u2026")) {
          elided = true; // "tenbin job ... --endpoint": which command is not said
          break;
        }
        if (path.equals("tenbin") && token.equals("bench")) {
          command = tree("bench", BenchCli::commandLine);
        } else if (path.equals("tenbin") && token.equals("drill")) {
          command = tree("drill", DrillCli::commandLine);
        } else if (path.equals("tenbin") && token.equals("serve") && i + 1 < tokens.length) {
          String service = tokens[i + 1];
          command = tree("serve " + service, () -> ServerCommands.of(service));
          if (command == null) {
            break;
          }
          path += " serve";
          i++;
          token = tokens[i];
        } else if (command.getSubcommands().containsKey(token)) {
          command = command.getSubcommands().get(token);
        } else {
          break;
        }
        path += " " + token;
        i++;
      }
      if (command == null || elided) {
        continue; // "serve" with no service named, or the command left out
      }
      if (Set.of("tenbin test", "tenbin fuzz", "tenbin jmh").contains(path)
          || path.equals("tenbin")
              && i < tokens.length
              && Set.of("test", "fuzz", "jmh").contains(tokens[i])) {
        continue; // the launcher's own commands (Maven and JMH take their flags)
      }
      Set<String> options = new TreeSet<>(command.getCommandSpec().optionsMap().keySet());
      for (; i < tokens.length; i++) {
        for (String part : tokens[i].split("\\|")) {
          Matcher flag = Pattern.compile("^[\\[(]*(--[a-z][a-z0-9-]*)").matcher(part);
          if (flag.find() && !options.contains(flag.group(1))) {
            problems.add(path + " has no " + flag.group(1));
          }
        }
      }
    }
    return problems;
  }

  @Test
  void everyFlagTheDocsGiveATenbinCommandIsOneOfItsOptions() throws IOException {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path document : documents()) {
      if (!Files.isRegularFile(document)) {
        continue;
      }
      for (Written written : commands(document)) {
        if (!written.line().contains("tenbin")) {
          continue;
        }
        checked++;
        for (String problem : unknownFlags(written.line())) {
          problems.add(written.where() + ": " + problem + "   (" + written.line().trim() + ")");
        }
      }
    }
    assertThat(checked).as("documented tenbin command lines").isGreaterThan(50);
    assertThat(problems).isEmpty();
  }

  @Test
  void aFlagTheCliDoesNotHaveIsFound() {
    assertThat(unknownFlags("./tenbin eval --dataset DIR --no-such-flag"))
        .containsExactly("tenbin eval has no --no-such-flag");
    assertThat(unknownFlags("./tenbin job submit SPEC --out DIR --watch")).isEmpty();
    assertThat(unknownFlags("./tenbin serve encoder --port 1 --http-port 2 --nope &"))
        .containsExactly("tenbin serve encoder has no --nope");
    assertThat(unknownFlags("./tenbin bench bm25 --dataset D --passes 2")).isEmpty();
    assertThat(unknownFlags("./tenbin drill kill-restart --service index --bogus"))
        .containsExactly("tenbin drill kill-restart has no --bogus");
  }
}
