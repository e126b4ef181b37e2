package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenbin models} shows each model's batch-invariance probe and encoding policy. */
class ModelsCommandTest {
  @TempDir Path tmp;

  private CliRunner models(String... more) throws Exception {
    Path models = tmp.resolve("models");
    TinyModels.dense(models, "tiny-dense", false);
    TinyModels.batchDependent(models, "tiny-batch-dependent");
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "models",
                "--model",
                "tiny-batch-dependent",
                "--model",
                "tiny-dense",
                "--models-dir",
                models.toString(),
                "--cache-dir",
                tmp.resolve("cache").toString()));
    args.addAll(java.util.List.of(more));
    return CliRunner.run(args.toArray(String[]::new));
  }

  @Test
  void listsWhetherEachModelIsBatchInvariantAndItsEncodingPolicy() throws Exception {
    CliRunner result = models();
    assertThat(result.exitCode()).as(result.err()).isZero();
    String[] lines = result.out().split("\n");
    assertThat(lines[0]).startsWith("model\tkind\tdimension\tdtype\tprovider\tbatch_invariant");
    assertThat(lines[1])
        .startsWith(
            "tiny-batch-dependent\tdense\t8\tFLOAT\tCPU\tno\tone-text-per-pass\t3 texts of ");
    assertThat(lines[2])
        .startsWith("tiny-dense\tdense\t8\tFLOAT\tCPU\tyes\tbatched\t3 texts of ")
        .endsWith("6 outputs compared bit for bit, 0 differ");
  }

  @Test
  void jsonGivesOneObjectPerModel() throws Exception {
    CliRunner result = models("--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode array = new ObjectMapper().readTree(result.out());
    assertThat(array).hasSize(2);
    assertThat(array.get(0).path("model").asText()).isEqualTo("tiny-batch-dependent");
    assertThat(array.get(0).path("batch_invariant").asBoolean()).isFalse();
    assertThat(array.get(0).path("encoding_policy").asText()).isEqualTo("one-text-per-pass");
    assertThat(array.get(0).path("probe_differing_outputs").asInt()).isPositive();
    assertThat(array.get(1).path("batch_invariant").asBoolean()).isTrue();
    assertThat(array.get(1).path("encoding_policy").asText()).isEqualTo("batched");
  }

  @Test
  void anUnknownModelIsAClearErrorNotATrace() throws Exception {
    CliRunner result = models("--model", "no-such-model");
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err()).contains("no-such-model").doesNotContain("\tat ");
  }
}
