package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MaxP variants run end to end, and a window too large for the model is refused. */
class MaxpEvalTest {
  @TempDir Path tmp;

  private CliRunner eval(String variant) throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    return CliRunner.run(
        "eval",
        "--dataset",
        TinyBeir.write(tmp.resolve("tiny")).toString(),
        "--retriever",
        "dense:tiny-dense",
        "--variant",
        "base",
        "--variant",
        variant,
        "--models-dir",
        models.toString(),
        "--cache-dir",
        tmp.resolve("cache").toString(),
        "--json");
  }

  @Test
  void aMaxpVariantRanksDocumentsNotWindows() throws Exception {
    CliRunner result = eval("maxp3s2");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode runs = new ObjectMapper().readTree(result.out()).get("runs");
    assertThat(runs).hasSize(2);
    assertThat(runs.get(1).get("variant").asText()).isEqualTo("maxp3s2");
    assertThat(runs.get(1).get("fingerprint").asText())
        .isNotEqualTo(runs.get(0).get("fingerprint").asText());
    assertThat(runs.get(1).get("num_queries").asInt()).isEqualTo(3);
  }

  @Test
  void aWindowThatDoesNotFitTheModelIsRefusedNamingTheVariant() throws Exception {
    CliRunner result = eval("maxp99999");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("does not fit tiny-dense").doesNotContain("Exception");
  }
}
