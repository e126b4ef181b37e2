package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.model.card.LocalModelDirectory;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.model.card.Pooling;
import dev.tenbin.testing.models.TinyModels;
import dev.tenbin.testing.models.TinyOnnxModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --similarity best} keeps, per variant, the better of cosine and dot by nDCG@10, on a model
 * whose vectors are not normalised, so the two similarities rank differently.
 */
class BestSimilarityTest {
  private static final int H = TinyModels.HIDDEN;
  @TempDir Path tmp;

  /**
   * Mean pooling over [CLS] word [SEP] with zero special rows: one-word texts get row/3. apple =
   * (3,0), banana = (3,0), cherry = (6,6), date = (0,3): the query "apple" is (1,0); the documents
   * "banana" (1,0), "cherry" (2,2), "date" (0,1). Cosine ranks banana first (1 against 0.71), dot
   * ranks cherry first (2 against 1).
   */
  private Path rawModel() throws Exception {
    Path models = tmp.resolve("models");
    Path dir = Files.createDirectories(models.resolve("tiny-raw"));
    float[] table = new float[TinyModels.VOCABULARY * H];
    row(table, "apple", 3, 0);
    row(table, "banana", 3, 0);
    row(table, "cherry", 6, 6);
    row(table, "date", 0, 3);
    Files.write(
        dir.resolve("model.onnx"),
        TinyOnnxModels.embeddingEncoder(table, TinyModels.VOCABULARY, H, false));
    Files.write(dir.resolve("tokenizer.json"), TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    LocalModelDirectory.writeCard(
        dir,
        new ModelCard(
            "tiny-raw",
            "test-rev",
            "",
            "model.onnx",
            "tokenizer.json",
            Pooling.MEAN,
            false,
            H,
            List.of(),
            32,
            "",
            "",
            OutputKind.DENSE,
            100,
            100,
            ""));
    return models;
  }

  private static void row(float[] table, String word, float x, float y) {
    int id = TinyModels.WORDS.indexOf(word) + 4;
    table[id * H] = x;
    table[id * H + 1] = y;
  }

  private Path dataset(String name, String relevant) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve(name).resolve("qrels"));
    Files.writeString(
        dir.resolveSibling("corpus.jsonl"),
        "{\"_id\": \"banana\", \"text\": \"banana\"}\n{\"_id\": \"cherry\", \"text\": \"cherry\"}\n{\"_id\": \"date\", \"text\": \"date\"}\n");
    Files.writeString(
        dir.resolveSibling("queries.jsonl"), "{\"_id\": \"q1\", \"text\": \"apple\"}\n");
    Files.writeString(
        dir.resolve("test.tsv"), "query-id\tcorpus-id\tscore\nq1\t" + relevant + "\t1\n");
    return dir.getParent();
  }

  private JsonNode run(Path models, Path data, String similarity) throws Exception {
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "dense:tiny-raw",
            "--models-dir",
            models.toString(),
            "--similarity",
            similarity,
            "--json",
            "--cache-dir",
            tmp.resolve("cache").toString());
    assertThat(result.exitCode()).as(result.err()).isZero();
    return new ObjectMapper().readTree(result.out()).get("runs").get(0);
  }

  private static double ndcg(JsonNode run) {
    return run.get("metrics").get("ndcg@10").asDouble();
  }

  @Test
  void bestKeepsCosineWhereCosineRanksBetterAndDotWhereDotRanksBetter() throws Exception {
    Path models = rawModel();
    for (String relevant : List.of("banana", "cherry")) {
      Path data = dataset("judges-" + relevant, relevant);
      JsonNode cosine = run(models, data, "cosine");
      JsonNode dot = run(models, data, "dot");
      JsonNode best = run(models, data, "best");
      String winner = relevant.equals("banana") ? "cosine" : "dot";
      double better = Math.max(ndcg(cosine), ndcg(dot));
      assertThat(better).as("the judged document is ranked first by " + winner).isEqualTo(1.0);
      assertThat(Math.min(ndcg(cosine), ndcg(dot)))
          .as("the other similarity ranks it lower")
          .isLessThan(1.0);
      assertThat(ndcg(winner.equals("cosine") ? cosine : dot)).isEqualTo(1.0);
      assertThat(ndcg(best)).as("best judging " + relevant).isEqualTo(better);
      assertThat(best.get("diagnostics").get("similarity").asText())
          .as("best judging " + relevant)
          .isEqualTo(winner);
    }
  }
}
