package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsCommandTest {
  @TempDir Path tmp;

  @Test
  void evaluatesARunFileAsTrecEvalDashC() throws Exception {
    Path qrels = Files.writeString(tmp.resolve("qrels.txt"), "q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq3 0 x 0\n");
    // q1: b (grade 2) ties with a at 5.0 and wins by docno descending; q2 absent; q3 only grade 0.
    Path run = Files.writeString(tmp.resolve("run.txt"), "q1 Q0 a 1 5.0 t\nq1 Q0 b 2 5.0 t\nq3 Q0 x 1 1 t\nq9 Q0 z 1 1 t\n");
    CliRunner result = CliRunner.run("metrics", "--qrels", qrels.toString(), "--run", run.toString(), "--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(result.out());
    assertThat(json.get("num_queries").asInt()).isEqualTo(3);
    // q1 is ideal (b then a): nDCG 1; q2 and q3 score 0.
    assertThat(json.get("metrics").get("ndcg@10").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
    assertThat(json.get("metrics").get("accuracy@1").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
    JsonNode tie = json.get("tie_aware").get("ndcg@10");
    double worst = (1 + 2 / (Math.log(3) / Math.log(2))) / (2 + 1 / (Math.log(3) / Math.log(2)));
    assertThat(tie.get("max").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
    assertThat(tie.get("min").asDouble()).isCloseTo(worst / 3, within(1e-12));
    assertThat(tie.get("range").asDouble()).isPositive();
    assertThat(result.err()).contains("1 run queries have no judgments");
  }

  @Test
  void missingFilesFailWithOneMessage() {
    CliRunner result = CliRunner.run("metrics", "--qrels", tmp.resolve("none").toString(), "--run", tmp.resolve("r").toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("qrels file not found").doesNotContain("\tat ");
  }
}
