package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.testing.data.TinyBeir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalErrorsTest {
  @TempDir Path tmp;

  private static void assertCleanFailure(CliRunner result, String message) {
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains(message).doesNotContain("\tat ");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void missingDatasetFolder() {
    assertCleanFailure(
        CliRunner.run("eval", "--dataset", tmp.resolve("nope").toString()),
        "dataset folder not found");
  }

  @Test
  void missingQrelsFile() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("d"));
    Files.delete(data.resolve("qrels/test.tsv"));
    assertCleanFailure(
        CliRunner.run("eval", "--dataset", data.toString()), "missing qrels/test.tsv");
  }

  @Test
  void corruptCorpusLineIsNamed() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("d"));
    Files.writeString(
        data.resolve("corpus.jsonl"),
        "{\"_id\": \"d1\", \"text\": \"ok\"}\n{not json\n",
        StandardCharsets.UTF_8);
    assertCleanFailure(CliRunner.run("eval", "--dataset", data.toString()), "corpus.jsonl line 2");
  }

  @Test
  void emptyCorpus() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("d"));
    Files.writeString(data.resolve("corpus.jsonl"), "\n", StandardCharsets.UTF_8);
    assertCleanFailure(CliRunner.run("eval", "--dataset", data.toString()), "empty corpus");
  }

  @Test
  void unknownLanguage() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("d"));
    assertCleanFailure(
        CliRunner.run("eval", "--dataset", data.toString(), "--language", "klingon"),
        "unknown language 'klingon'");
  }

  @Test
  void unknownRetrieverAndBadFlags() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("d"));
    assertCleanFailure(
        CliRunner.run("eval", "--dataset", data.toString(), "--retriever", "magic"),
        "unknown retriever 'magic'");
    CliRunner badFlag = CliRunner.run("eval", "--dataset", data.toString(), "--frobnicate");
    assertThat(badFlag.exitCode()).isEqualTo(2);
    assertThat(badFlag.err()).contains("Unknown option: '--frobnicate'");
    assertCleanFailure(
        CliRunner.run("eval", "--dataset", data.toString(), "--index-endpoint", "nonsense"),
        "--index-endpoint is missing its port (HOST:PORT), got 'nonsense'");
  }

  @Test
  void failedEvaluationLeavesNothingInOut() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("d"));
    Files.writeString(data.resolve("queries.jsonl"), "{\"_id\": 1}\n", StandardCharsets.UTF_8);
    Path out = tmp.resolve("out");
    assertCleanFailure(
        CliRunner.run("eval", "--dataset", data.toString(), "--out", out.toString()),
        "queries.jsonl line 1");
    assertThat(out).doesNotExist();
    try (var siblings = Files.list(tmp)) {
      assertThat(siblings.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.contains("staging"));
    }
  }

  @Test
  void nonEmptyOutIsRefusedBeforeAnyWork() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("d"));
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.writeString(out.resolve("keep.txt"), "mine");
    assertCleanFailure(
        CliRunner.run("eval", "--dataset", data.toString(), "--out", out.toString()),
        "is not empty");
    assertThat(Files.readString(out.resolve("keep.txt"))).isEqualTo("mine");
  }
}
