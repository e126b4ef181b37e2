package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenbin nano build} with the project's own BM25 and dense retrieval as miners. */
class NanoCommandTest {
  @TempDir Path tmp;

  /** Three queries with one positive each and no judged negatives; words of the tiny models. */
  private Path unjudged() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("words").resolve("qrels"));
    String[] words = {"apple", "banana", "cherry", "date", "elder", "fig", "grape"};
    StringBuilder corpus = new StringBuilder();
    for (int i = 0; i < words.length; i++) {
      for (int j = 0; j < words.length; j++) {
        corpus.append(
            String.format(
                "{\"_id\": \"%s-%s\", \"text\": \"%s %s %s\"}%n",
                words[i], words[j], words[i], words[j], i == j ? "" : words[i]));
      }
    }
    Files.writeString(dir.resolveSibling("corpus.jsonl"), corpus);
    Files.writeString(
        dir.resolveSibling("queries.jsonl"),
        "{\"_id\": \"q1\", \"text\": \"apple\"}\n"
            + "{\"_id\": \"q2\", \"text\": \"banana\"}\n"
            + "{\"_id\": \"q3\", \"text\": \"cherry\"}\n");
    Files.writeString(
        dir.resolve("test.tsv"),
        "query-id\tcorpus-id\tscore\nq1\tapple-apple\t1\nq2\tbanana-banana\t1\nq3\tcherry-cherry\t1\n");
    return dir.getParent();
  }

  @Test
  void minesHardNegativesWithBm25AndADenseModelWhenTheQrelsJudgeNone() throws Exception {
    Path data = unjudged();
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    Path out = tmp.resolve("nano");

    CliRunner result =
        CliRunner.run(
            "nano",
            "build",
            "--dataset",
            data.toString(),
            "--out",
            out.toString(),
            "--max-documents",
            "15",
            "--miners",
            "bm25,dense:tiny-dense",
            "--mining-depth",
            "5",
            "--language",
            "en",
            "--models-dir",
            models.toString(),
            "--cache-dir",
            tmp.resolve("cache").toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.err()).contains("3 queries, 15 documents (3 positives, 0 judged +");
    JsonNode record = new ObjectMapper().readTree(out.resolve("nano.json").toFile());
    assertThat(record.path("hard_negatives_source").asText()).isEqualTo("mined");
    assertThat(record.path("mining").path("depth").asInt()).isEqualTo(5);
    JsonNode miners = record.path("mining").path("miners");
    assertThat(miners.get(0).path("name").asText()).isEqualTo("bm25");
    assertThat(miners.get(0).path("language").asText()).isEqualTo("en");
    assertThat(miners.get(1).path("name").asText()).isEqualTo("dense:tiny-dense");
    assertThat(miners.get(1).path("model_id").asText()).isEqualTo("tiny-dense");
    assertThat(miners.get(1).path("model_revision").asText()).isEqualTo("test-rev");
    int mined = record.path("mined_hard_negatives").asInt();
    // Each query's pool holds up to 2 x 5 documents less its positive: 12 places are all mined.
    assertThat(mined).isEqualTo(12);
    assertThat(record.path("filler").asInt()).isZero();
    BeirDataset nano = BeirDatasetReader.read(out);
    List<String> ids = nano.corpus().stream().map(CorpusDocument::id).toList();
    assertThat(ids).hasSize(15);
    assertThat(ids.subList(0, 3))
        .containsExactlyInAnyOrder("apple-apple", "banana-banana", "cherry-cherry");
    // BM25 ranks a query word's own documents first ("apple-x" repeats apple): they are mined.
    assertThat(ids).contains("apple-banana", "banana-apple", "cherry-apple");
  }

  @Test
  void badFlagsFailWithAClearMessage() throws Exception {
    Path data = unjudged();
    List<List<String>> cases =
        List.of(
            List.of("--max-queries", "0"),
            List.of("--max-queries", "201"),
            List.of("--max-documents", "10001"),
            List.of("--mining-depth", "0"),
            List.of("--miners", "bm25,sparse:x"),
            List.of("--miners", "bm25,bm25"),
            List.of("--hard-negatives", "sometimes"));
    List<String> messages =
        List.of(
            "--max-queries must be within 1..200, got 0",
            "--max-queries must be within 1..200, got 201",
            "--max-documents must be within 1..10000, got 10001",
            "--mining-depth must be within 1..1000, got 0",
            "unknown miner 'sparse:x'",
            "--miners names a miner twice",
            "--hard-negatives must be auto, judged, mined or both, got 'sometimes'");
    for (int i = 0; i < cases.size(); i++) {
      Path out = tmp.resolve("out" + i);
      List<String> args = new java.util.ArrayList<>(List.of("nano", "build", "--dataset"));
      args.add(data.toString());
      args.add("--out");
      args.add(out.toString());
      args.addAll(cases.get(i));
      CliRunner result = CliRunner.run(args.toArray(String[]::new));
      assertThat(result.exitCode()).as(cases.get(i).toString()).isEqualTo(2);
      assertThat(result.err()).contains(messages.get(i)).doesNotContain("\tat ");
      assertThat(out).doesNotExist();
    }
  }
}
