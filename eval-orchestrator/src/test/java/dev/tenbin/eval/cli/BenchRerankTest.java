package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.encoder.testing.TinyModels;
import dev.tenbin.encoder.testing.TinyOnnxModels;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench rerank}: candidates inline or by id, and the output says which way they went. */
class BenchRerankTest {
  @TempDir Path tmp;
  private Path dataset;
  private Path models;

  @BeforeEach
  void fixtures() throws Exception {
    dataset = TinyBeir.write(tmp.resolve("beir"));
    models = tmp.resolve("models");
    Path crossEncoder = Files.createDirectories(models.resolve("tiny-ce"));
    Files.write(
        crossEncoder.resolve("model.onnx"),
        TinyOnnxModels.pairClassifier(
            TinyOnnxModels.table(TinyModels.VOCABULARY, TinyModels.HIDDEN, 1),
            TinyOnnxModels.table(TinyModels.HIDDEN, 1, 2),
            TinyModels.VOCABULARY,
            TinyModels.HIDDEN,
            1,
            false));
    Files.write(
        crossEncoder.resolve("tokenizer.json"),
        TinyOnnxModels.wordLevelTokenizer(TinyModels.WORDS));
    Files.writeString(
        crossEncoder.resolve("card.json"),
        "{\"id\":\"tiny-ce\",\"revision\":\"r1\",\"head\":\"SIGMOID\"}");
  }

  private CliRunner bench(String... extra) {
    String[] args = {
      "bench",
      "rerank",
      "--model",
      "tiny-ce",
      "--dataset",
      dataset.toString(),
      "--models-dir",
      models.toString(),
      "--cache-dir",
      tmp.resolve("cache").toString(),
      "--queries",
      "2",
      "--json"
    };
    String[] all = java.util.Arrays.copyOf(args, args.length + extra.length);
    System.arraycopy(extra, 0, all, args.length, extra.length);
    return CliRunner.run(all);
  }

  @Test
  void documentsTravelInlineByDefaultAndByIdWhenAsked() throws Exception {
    CliRunner inline = bench("--pairs", "4");
    CliRunner byId = bench("--pairs", "4", "--documents-by-id");

    assertThat(inline.exitCode()).as(inline.err()).isZero();
    assertThat(byId.exitCode()).as(byId.err()).isZero();
    JsonNode inlineJson = new ObjectMapper().readTree(inline.out());
    JsonNode byIdJson = new ObjectMapper().readTree(byId.out());
    assertThat(inlineJson.get("documents").asText()).isEqualTo("inline");
    assertThat(byIdJson.get("documents").asText()).isEqualTo("by_id");
    assertThat(byIdJson.get("pairs_per_request").asInt()).isEqualTo(4);
    assertThat(byIdJson.get("grpc_pairs_per_s").asDouble()).isPositive();
    assertThat(byIdJson.get("in_process_pairs_per_s").asDouble()).isPositive();
  }

  @Test
  void byIdNeedsNoMorePairsThanTheCorpusHolds() {
    CliRunner result = bench("--documents-by-id", "--pairs", "5");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--documents-by-id needs --pairs at most the corpus size");
  }
}
