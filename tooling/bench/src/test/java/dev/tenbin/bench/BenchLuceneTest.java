package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench lucene}: what it reports, where it writes, and what it refuses. */
class BenchLuceneTest {
  @TempDir Path tmp;
  private Path dataset;

  @BeforeEach
  void fixtures() throws Exception {
    dataset = TinyBeir.write(tmp.resolve("beir"));
  }

  @Test
  void itIndexesEveryDocumentOfTheCorpusIntoTheFolderItWasGiven() throws Exception {
    Path index = tmp.resolve("lucene");
    CliRunner run =
        CliRunner.run(
            "bench",
            "lucene",
            "--dataset",
            dataset.toString(),
            "--threads",
            "2",
            "--commit-every",
            "3",
            "--index",
            index.toString(),
            "--json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(run.out());
    long corpus;
    try (var lines = Files.lines(dataset.resolve("corpus.jsonl"))) {
      corpus = lines.filter(line -> !line.isBlank()).count();
    }
    assertThat(json.get("documents").asLong()).isEqualTo(corpus);
    assertThat(json.get("threads").asInt()).isEqualTo(2);
    assertThat(json.get("commits").asLong()).isEqualTo((corpus + 2) / 3);
    assertThat(json.get("language").asText()).isEqualTo("en");
    assertThat(json.get("index_docs_per_s").asDouble()).isPositive();
    try (var directory = FSDirectory.open(index);
        DirectoryReader reader = DirectoryReader.open(directory)) {
      assertThat((long) reader.numDocs()).isEqualTo(corpus);
      assertThat(reader.leaves()).hasSize(json.get("segments").asInt());
    }
  }

  @Test
  void withoutAFolderItIndexesIntoATemporaryOneAndDeletesIt() throws Exception {
    Path temporary = Path.of(System.getProperty("java.io.tmpdir"));
    java.util.Set<Path> before = leftovers(temporary);
    CliRunner run =
        CliRunner.run("bench", "lucene", "--dataset", dataset.toString(), "--threads", "1");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("Lucene alone on beir:", "documents/s", "1 indexing thread(s)");
    assertThat(leftovers(temporary)).isEqualTo(before);
  }

  private static java.util.Set<Path> leftovers(Path temporary) throws Exception {
    try (var entries = Files.list(temporary)) {
      return entries
          .filter(path -> path.getFileName().toString().startsWith("tenbin-lucene-"))
          .collect(java.util.stream.Collectors.toSet());
    }
  }

  @Test
  void aFolderThatExistsIsRefusedBeforeAnythingIsWrittenInIt() throws Exception {
    Path existing = Files.createDirectories(tmp.resolve("existing"));
    CliRunner refused =
        CliRunner.run(
            "bench", "lucene", "--dataset", dataset.toString(), "--index", existing.toString());

    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .contains("exists; name a folder to create")
        .doesNotContain("Exception");
    assertThat(existing).isEmptyDirectory();
  }

  @Test
  void threadsBelowOneUnknownLanguagesAndNegativeCommitIntervalsAreRefusedNamingTheFlag() {
    CliRunner threads =
        CliRunner.run("bench", "lucene", "--dataset", dataset.toString(), "--threads", "0");
    assertThat(threads.exitCode()).isEqualTo(2);
    assertThat(threads.err()).contains("--threads must be at least 1");

    CliRunner language =
        CliRunner.run("bench", "lucene", "--dataset", dataset.toString(), "--language", "xx-yy");
    assertThat(language.exitCode()).isEqualTo(2);
    assertThat(language.err()).contains("--language: unknown language").doesNotContain("Exception");

    CliRunner commits =
        CliRunner.run("bench", "lucene", "--dataset", dataset.toString(), "--commit-every", "-1");
    assertThat(commits.exitCode()).isEqualTo(2);
    assertThat(commits.err()).contains("--commit-every must be at least 0");
  }
}
