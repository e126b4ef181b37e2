package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenbin eval --positions}: the JSON shape per run, and a clear refusal. */
class EvalPositionsTest {
  @TempDir Path tmp;

  @Test
  void eachRunCarriesItsPositionAnalysisInTheDocumentedShape() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    // q1's answer "apple trees" in d1's text, q2's "noon" at its end, q3's "red" in the middle.
    Files.writeString(
        data.resolve("qrels/spans.tsv"),
        "query-id\tcorpus-id\tstart\tend\nq1\td1\t15\t26\nq2\td4\t32\t36\nq3\td3\t19\t22\n");
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "bm25",
            "--positions",
            "--min-count",
            "1",
            "--json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode positions =
        new ObjectMapper().readTree(result.out()).get("runs").get(0).get("positions");
    assertThat(positions.get("tokenizer").asText()).isEqualTo("bge-small-en-v1.5");
    assertThat(positions.get("min_count").asInt()).isEqualTo(1);
    assertThat(positions.get("reference").asText()).isEqualTo("bm25");
    JsonNode buckets = positions.get("buckets");
    assertThat(buckets).hasSize(5);
    JsonNode first = buckets.get(0);
    assertThat(first.get("min_tokens").asInt()).isZero();
    assertThat(first.get("max_tokens").asInt()).isEqualTo(512);
    assertThat(first.get("queries").asInt()).isEqualTo(3);
    assertThat(first.get("bins")).hasSize(20);
    assertThat(buckets.get(4).get("max_tokens").isNull()).isTrue();
    // d4 "the train leaves the station at noon" (36 characters): centre 34 -> bin 18.
    JsonNode late = first.get("bins").get(18);
    assertThat(late.get("queries").asInt()).isEqualTo(1);
    assertThat(late.get("ndcg@10").asDouble()).isEqualTo(1.0);
    assertThat(first.get("bins").get(1).get("ndcg@10").isNull()).isTrue();
    assertThat(first.has("psi") && first.has("slope") && first.has("kendall")).isTrue();
    assertThat(first.get("reference_pearson").isNull() || first.get("reference_pearson").isNumber())
        .isTrue();
  }

  @Test
  void aDatasetWithoutSpansIsRefusedBeforeAnyRun() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    CliRunner result =
        CliRunner.run("eval", "--dataset", data.toString(), "--retriever", "bm25", "--positions");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("--positions needs answer spans")
        .contains("qrels/spans.tsv")
        .doesNotContain("Exception");
  }
}
