package dev.tenbin.eval.taskset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.taskset.DatasetSource.HubDataset;
import dev.tenbin.eval.taskset.DatasetSource.LocalBeir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskSetParserTest {
  @TempDir Path tmp;

  private final TaskSetParser parser =
      new TaskSetParser(Map.of("DATA", "/data/beir"), Path.of("/home/tenbin"));

  private Path spec(String yaml) throws IOException {
    Files.createDirectories(tmp.resolve("specs"));
    return Files.writeString(tmp.resolve("specs/set.yaml"), yaml);
  }

  private static void assertInvalid(ThrowingCallable parse, String field, String message) {
    assertThatThrownBy(parse)
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("set.yaml")
        .hasMessageContaining(message)
        .satisfies(e -> assertThat(((InvalidInputException) e).field()).isEqualTo(field));
  }

  @Test
  void hubAndLocalTasksWithTheirDefaults() throws Exception {
    Path file =
        spec(
            """
            name: demo
            description: two tasks
            citation: Someone 2024
            tasks:
              - name: NanoSciFact
                language: en
                domain: science
                source:
                  hub: zeta-alpha-ai/NanoSciFact
                  revision: 309f1d1ae3ae2e092444a8a0c25bed59b82318bc
              - name: xquad-de
                dataset: xquad
                language: de
                source:
                  path: ../data/xquad-de
                  # comments are fine
              - name: multi
                language: auto
                source: {hub: owner/multi, revision: v1.0, split: NanoNQ, format: jsonl, configs: {corpus: docs}}
            """);
    TaskSetSpec set = parser.parse(file);
    assertThat(set.name()).isEqualTo("demo");
    assertThat(set.description()).isEqualTo("two tasks");
    assertThat(set.citation()).isEqualTo("Someone 2024");
    assertThat(set.baseDirectory()).isEqualTo(tmp.resolve("specs").toAbsolutePath());
    assertThat(set.tasks())
        .extracting(TaskSpec::name)
        .containsExactly("NanoSciFact", "xquad-de", "multi");

    TaskSpec scifact = set.tasks().get(0);
    assertThat(scifact.dataset()).as("dataset defaults to the name").isEqualTo("NanoSciFact");
    assertThat(scifact.citation()).isEmpty();
    assertThat(scifact.source())
        .isEqualTo(
            new HubDataset(
                "zeta-alpha-ai/NanoSciFact",
                "309f1d1ae3ae2e092444a8a0c25bed59b82318bc",
                "train",
                Map.of(),
                ""));

    TaskSpec xquad = set.tasks().get(1);
    assertThat(xquad.dataset()).isEqualTo("xquad");
    assertThat(xquad.domain()).isEmpty();
    assertThat(xquad.source())
        .isEqualTo(new LocalBeir(tmp.resolve("data/xquad-de").toAbsolutePath().normalize()));

    TaskSpec multi = set.tasks().get(2);
    assertThat(multi.detectsLanguage()).isTrue();
    HubDataset source = (HubDataset) multi.source();
    assertThat(source.split()).isEqualTo("NanoNQ");
    assertThat(source.format()).isEqualTo("jsonl");
    assertThat(source.config("corpus")).isEqualTo("docs");
    assertThat(source.config("qrels")).isEqualTo("qrels");
    assertThat(set.task("multi")).contains(multi);
  }

  @Test
  void pathsExpandHomeAndEnvironmentVariables() throws Exception {
    TaskSetSpec set =
        parser.parse(
            spec(
                """
                name: paths
                tasks:
                  - {name: a, language: en, source: {path: "~/beir/a"}}
                  - {name: b, language: en, source: {path: "${DATA}/b"}}
                  - {name: c, language: en, source: {path: /abs/c}}
                """));
    assertThat(set.tasks())
        .extracting(task -> ((LocalBeir) task.source()).directory())
        .containsExactly(
            Path.of("/home/tenbin/beir/a"), Path.of("/data/beir/b"), Path.of("/abs/c"));
  }

  @Test
  void aMissingRevisionIsNamedByItsYamlPath() throws Exception {
    Path file =
        spec(
            """
            name: demo
            tasks:
              - {name: a, language: en, source: {path: a}}
              - {name: b, language: en, source: {path: b}}
              - {name: c, language: en, source: {path: c}}
              - name: d
                language: en
                source:
                  hub: owner/name
            """);
    assertInvalid(
        () -> parser.parse(file),
        "tasks[3].source.revision",
        "pin a branch, tag or, for reproducible runs, a commit SHA");
  }

  @Test
  void unknownKeysAreErrors() throws Exception {
    Path file =
        spec("name: demo\ntasks:\n  - {name: a, language: en, langauge: de, source: {path: a}}\n");
    assertInvalid(() -> parser.parse(file), "tasks[0].langauge", "unknown key 'langauge'");
    Path top =
        spec("name: demo\nversion: 2\ntasks:\n  - {name: a, language: en, source: {path: a}}\n");
    assertInvalid(() -> parser.parse(top), "version", "unknown key 'version'");
    Path hubKeyOnLocal =
        spec("name: demo\ntasks:\n  - {name: a, language: en, source: {path: a, format: jsonl}}\n");
    assertInvalid(
        () -> parser.parse(hubKeyOnLocal), "tasks[0].source.format", "only applies to hub sources");
  }

  @Test
  void aLocalSourceMayNameItsQrelsSplit() throws Exception {
    Path file =
        spec("name: demo\ntasks:\n  - {name: a, language: en, source: {path: a, split: dev}}\n");
    LocalBeir source = (LocalBeir) parser.parse(file).tasks().getFirst().source();
    assertThat(source.split()).isEqualTo("dev");
    assertThat(source.describe()).endsWith("(split dev)");
    Path plain = spec("name: demo\ntasks:\n  - {name: a, language: en, source: {path: a}}\n");
    assertThat(((LocalBeir) parser.parse(plain).tasks().getFirst().source()).split())
        .isEqualTo("test");
  }

  @Test
  void taskNamesAreUnique() throws Exception {
    Path file =
        spec(
            """
            name: demo
            tasks:
              - {name: a, language: en, source: {path: a}}
              - {name: a, language: de, source: {path: b}}
            """);
    assertInvalid(() -> parser.parse(file), "tasks[1].name", "duplicate task name 'a'");
  }

  @Test
  void requiredFieldsAndValueShapesAreChecked() throws Exception {
    assertInvalid(() -> parser.parse(spec("tasks: []\n")), "name", "missing");
    assertInvalid(() -> parser.parse(spec("name: demo\n")), "tasks", "declares no task");
    assertInvalid(
        () -> parser.parse(spec("name: d\ntasks:\n  - {name: a, source: {path: a}}\n")),
        "tasks[0].language",
        "missing");
    assertInvalid(
        () ->
            parser.parse(
                spec("name: d\ntasks:\n  - {name: a, language: english, source: {path: a}}\n")),
        "tasks[0].language",
        "ISO 639-1");
    assertInvalid(
        () ->
            parser.parse(
                spec(
                    "name: d\ntasks:\n  - {name: a, language: en, source: {path: a, hub: o/n}}\n")),
        "tasks[0].source",
        "exactly one of path");
    assertInvalid(
        () ->
            parser.parse(
                spec(
                    "name: d\ntasks:\n  - {name: a, language: en, source: {hub: not-a-repo, revision: main}}\n")),
        "tasks[0].source.hub",
        "owner/name");
    assertInvalid(
        () ->
            parser.parse(
                spec(
                    "name: d\ntasks:\n  - {name: a, language: en, source: {hub: o/n, revision: main, format: csv}}\n")),
        "tasks[0].source.format",
        "parquet or jsonl");
    assertInvalid(
        () ->
            parser.parse(
                spec(
                    "name: d\ntasks:\n  - {name: a, language: en, source: {hub: o/n, revision: main, configs: {docs: x}}}\n")),
        "tasks[0].source.configs.docs",
        "unknown key 'docs'");
    assertInvalid(
        () ->
            parser.parse(
                spec(
                    "name: d\ntasks:\n  - {name: a, language: en, source: {path: \"${NOPE}/a\"}}\n")),
        "tasks[0].source.path",
        "environment variable NOPE is not set");
    assertInvalid(() -> parser.parse(spec("name: d\ntasks: {a: 1}\n")), "tasks", "expected a list");
  }

  @Test
  void yamlSyntaxErrorsNameTheFileLineAndColumnWithoutTheSourceText() throws Exception {
    Path file = spec("name: demo\ntasks:\n  - name: [unclosed\n");
    assertThatThrownBy(() -> parser.parse(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("set.yaml: not valid YAML (line 4, column 1: expected ',' or ']'")
        .hasMessageNotContaining("unclosed");
    Path duplicate = spec("name: demo\nname: again\ntasks: []\n");
    assertThatThrownBy(() -> parser.parse(duplicate))
        .hasMessageContaining("not valid YAML")
        .hasMessageContaining("name");
    assertThatThrownBy(() -> parser.parse(tmp.resolve("absent.yaml")))
        .hasMessageContaining("task-set spec not found");
  }

  @Test
  void tasksFromMakesATaskOfEveryBeirFolderDirectlyUnderIt() throws Exception {
    Path data = tmp.resolve("data");
    for (String name : new String[] {"xquad-en", "xquad-de", "arcd-ar"}) {
      Files.createDirectories(data.resolve(name));
      Files.writeString(data.resolve(name).resolve("corpus.jsonl"), "");
    }
    Files.createDirectories(data.resolve("notes")); // no corpus.jsonl: not a task
    Path file =
        spec(
            """
            name: folders
            tasks_from:
              path: ../data
              domain: QA
              folders:
                xquad-de: {dataset: xquad, language: de, domain: wikipedia-QA}
                arcd-ar: {language: ar}
            """);
    TaskSetSpec set = parser.parse(file);
    assertThat(set.tasks())
        .extracting(TaskSpec::name, TaskSpec::dataset, TaskSpec::language, TaskSpec::domain)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("arcd-ar", "arcd-ar", "ar", "QA"),
            org.assertj.core.groups.Tuple.tuple("xquad-de", "xquad", "de", "wikipedia-QA"),
            org.assertj.core.groups.Tuple.tuple("xquad-en", "xquad-en", "auto", "QA"));

    TaskSetSpec shorthand = parser.parse(spec("name: folders\ntasks_from: ../data\n"));
    assertThat(shorthand.tasks()).hasSize(3).allMatch(TaskSpec::detectsLanguage);

    assertInvalid(
        () ->
            parser.parse(
                spec(
                    "name: f\ntasks_from: {path: ../data, folders: {xquad-fr: {language: fr}}}\n")),
        "tasks_from.folders.xquad-fr",
        "no BEIR folder 'xquad-fr'");
    assertInvalid(
        () -> parser.parse(spec("name: f\ntasks_from: ../nowhere\n")),
        "tasks_from",
        "folder not found");
  }

  @Test
  void aLengthReferenceNamesAnotherTaskOfTheSetThatBorrowsNothing() throws Exception {
    String two =
        """
        name: parallel
        tasks:
          - {name: xquad-en, language: en, source: {path: /data/en}}
          - {name: xquad-de, language: de, source: {path: /data/de}, length_reference: %s}
        """;
    TaskSetSpec spec = parser.parse(spec(two.formatted("xquad-en")));
    assertThat(spec.task("xquad-de").orElseThrow().lengthReference()).isEqualTo("xquad-en");
    assertThat(spec.task("xquad-en").orElseThrow().lengthReference()).isNull();

    assertInvalid(
        () -> parser.parse(spec(two.formatted("xquad-fr"))),
        "tasks[1].length_reference",
        "no task named 'xquad-fr'");
    assertInvalid(
        () -> parser.parse(spec(two.formatted("xquad-de"))),
        "tasks[1].length_reference",
        "cannot be its own length reference");
    assertInvalid(
        () ->
            parser.parse(
                spec(
                    """
                    name: chained
                    tasks:
                      - {name: a, language: en, source: {path: /a}, length_reference: b}
                      - {name: b, language: en, source: {path: /b}, length_reference: c}
                      - {name: c, language: en, source: {path: /c}}
                    """)),
        "tasks[0].length_reference",
        "'b' borrows its lengths from 'c'");
  }
}
