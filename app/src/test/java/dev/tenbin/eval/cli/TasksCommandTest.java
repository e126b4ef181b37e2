package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.scoring.beir.DatasetFingerprint;
import dev.tenbin.testing.data.TinyBeir;
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
  void showSaysWhatANanoSetsRecordedFidelityIs() throws Exception {
    Path spec = spec();
    Files.writeString(
        tmp.resolve("data/tiny-en/fidelity.json"),
        "{\"full_task\": \"shared/xquad-en\", \"metric\": \"ndcg@10\", \"kendall_tau_b\": 0.333,"
            + " \"pairs_ordered_the_same\": 2, \"pairs\": 3, \"systems\": [{}, {}, {}]}");
    CliRunner result = CliRunner.run("tasks", "show", spec.toString());
    assertThat(result.exitCode()).isEqualTo(0);
    assertThat(result.out())
        .contains(
            "# tiny-en is a Nano-set: ndcg@10 ranks 3 systems as shared/xquad-en does with Kendall"
                + " tau-b 0.333 (2 of 3 pairs the same; fidelity.json)")
        .doesNotContain("# tiny-de is a Nano-set");
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
