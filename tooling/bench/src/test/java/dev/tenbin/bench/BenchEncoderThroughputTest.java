package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench encoder --throughput}: documents/s per token budget, the graph's FLOP count and the
 * fraction of the FMA peak, and the texts and vectors a peer is compared on.
 */
class BenchEncoderThroughputTest {
  @TempDir Path folder;

  @Test
  void itReportsEveryBudgetTheGraphCostAndWritesTextsAndVectorsInDocumentOrder() throws Exception {
    Path texts = folder.resolve("texts.jsonl");
    Path vectors = folder.resolve("vectors.f32");
    CliRunner result =
        CliRunner.run(
            "bench",
            "encoder",
            "--model",
            "e5-small-v2",
            "--documents",
            "12",
            "--throughput",
            "--batch-tokens",
            "256,4096",
            "--passes",
            "1",
            "--threads",
            "1",
            "--peak-gflops",
            "50",
            "--cache-dir",
            folder.resolve("cache").toString(),
            "--texts-out",
            texts.toString(),
            "--vectors-out",
            vectors.toString(),
            "--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(result.out());

    // e5-small-v2 is 12 BERT layers of width 384 and feed-forward 1536: Q, K, V, output and the two
    // feed-forward matrices are 4·384² + 2·384·1536 multiply-adds per token and layer.
    assertThat(json.get("weight_multiply_adds_per_token").asLong())
        .isEqualTo(12L * (4 * 384 * 384 + 2 * 384 * 1536));
    assertThat(json.get("attention_products").asInt()).isEqualTo(24);
    assertThat(json.get("hidden").asInt()).isEqualTo(384);
    assertThat(json.get("intra_op_threads").asInt()).isEqualTo(1);
    assertThat(json.get("shapes")).hasSize(2);
    assertThat(json.get("shapes").findValuesAsText("batch_tokens")).containsExactly("256", "4096");
    for (JsonNode shape : json.get("shapes")) {
      assertThat(shape.get("docs_per_s").asDouble()).isPositive();
      assertThat(shape.get("gflops").asDouble()).isPositive();
      assertThat(shape.get("padded_share").asDouble()).isBetween(0.0, 1.0);
    }
    // The given peak is the one divided by; the 512-bit peak is measured in the run.
    assertThat(json.get("fma_peak_gflops").asDouble()).isEqualTo(50.0);
    assertThat(json.get("fma_peak_measured_in_run").asBoolean()).isFalse();
    assertThat(json.get("fraction_of_peak").asDouble())
        .isCloseTo(
            json.get("best_gflops").asDouble() / 50.0, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(json.get("fma512_peak_gflops").asDouble()).isPositive();

    List<String> lines = Files.readAllLines(texts);
    assertThat(lines).hasSize(12);
    // The card's document prompt is part of what was encoded.
    assertThat(new ObjectMapper().readValue(lines.getFirst(), String.class))
        .startsWith("passage: ");
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(vectors)).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(bytes.remaining()).isEqualTo(12 * 384 * Float.BYTES);
    double norm = 0;
    for (int i = 0; i < 384; i++) {
      float x = bytes.getFloat();
      norm += x * x;
    }
    assertThat(norm).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
  }

  @Test
  void outputFilesNeedTheThroughputModeAndBudgetsMustBePositive() {
    CliRunner files =
        CliRunner.run(
            "bench",
            "encoder",
            "--model",
            "e5-small-v2",
            "--texts-out",
            folder.resolve("t").toString());
    assertThat(files.exitCode()).isEqualTo(2);
    assertThat(files.err()).contains("--texts-out and --vectors-out need --throughput");
    CliRunner budgets =
        CliRunner.run(
            "bench", "encoder", "--model", "e5-small-v2", "--throughput", "--batch-tokens", "0");
    assertThat(budgets.exitCode()).isEqualTo(2);
    assertThat(budgets.err()).contains("--batch-tokens must be positive");
  }
}
