package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.testing.TinyBeir;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TasksCommandTest {
  @TempDir Path tmp;

  private Path spec() throws Exception {
    TinyBeir.write(tmp.resolve("data/tiny-en"));
    TinyBeir.write(tmp.resolve("data/tiny-de"));
    return Files.writeString(
        tmp.resolve("set.yaml"),
        """
        name: tiny
        tasks:
          - {name: tiny-en, dataset: tiny, language: en, domain: fruit, source: {path: data/tiny-en}}
          - {name: tiny-de, dataset: tiny, language: de, source: {path: data/tiny-de}}
          - {name: nano, language: en, source: {hub: owner/nano, revision: main, split: NanoNQ}}
        """);
  }

  @Test
  void showListsEveryTaskWithItsSource() throws Exception {
    CliRunner result = CliRunner.run("tasks", "show", spec().toString());
    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.out())
        .contains("# tiny: 3 tasks")
        .contains("tiny-en\ttiny\ten\tfruit\tlocal:" + tmp.resolve("data/tiny-en").toAbsolutePath())
        .contains("tiny-de\ttiny\tde\t-\tlocal:")
        .contains("nano\tnano\ten\t-\thub:owner/nano@main (split NanoNQ)");
  }

  @Test
  void fetchLoadsLocalTasksAndPrintsSizesAndIdentity() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("local.yaml"),
            "name: local\ntasks:\n  - {name: tiny, language: en, source: {path: data/tiny}}\n");
    Path data = TinyBeir.write(tmp.resolve("data/tiny"));
    CliRunner result =
        CliRunner.run(
            "tasks", "fetch", file.toString(), "--cache-dir", tmp.resolve("cache").toString());
    assertThat(result.exitCode()).isEqualTo(0);
    // TinyBeir: 4 documents, 3 queries with a relevant judgment.
    assertThat(result.out())
        .contains("task\tdocs\tqueries\tdataset_sha")
        .contains("tiny\t4\t3\t" + DatasetFingerprint.of(data));
    assertThat(result.err()).contains("loading tiny from local:");
  }

  @Test
  void aBrokenSpecFailsWithTheFieldAndNoTrace() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("bad.yaml"),
            "name: bad\ntasks:\n  - {name: a, language: en, source: {hub: o/n}}\n");
    CliRunner result = CliRunner.run("tasks", "show", file.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("bad.yaml: tasks[0].source.revision: missing")
        .doesNotContain("\tat ");
  }
}
