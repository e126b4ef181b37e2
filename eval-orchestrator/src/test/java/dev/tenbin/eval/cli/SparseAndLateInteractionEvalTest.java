package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.encoder.testing.TinyModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SparseAndLateInteractionEvalTest {
  @TempDir Path tmp;

  private JsonNode runs(String... args) throws Exception {
    CliRunner result = CliRunner.run(args);
    assertThat(result.exitCode()).as(result.err()).isZero();
    return new ObjectMapper().readTree(result.out()).get("runs");
  }

  @Test
  void bm25WeightedTokenVectorsRunTheSparseMachineryOnRealTextWithThePruningGrid() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    JsonNode runs =
        runs(
            "eval", "--dataset", data.toString(), "--retriever", "sparse-bm25:all-minilm-l6-v2", "--variant", "base",
            "--variant", "sparse_grid", "--json", "--cache-dir", tmp.resolve("cache").toString());
    List<String> variants = new ArrayList<>();
    runs.forEach(r -> variants.add(r.get("variant").asText()));
    assertThat(variants).hasSize(17).startsWith("base", "sparse_q8_d64").endsWith("sparse_q32_d512");
    assertThat(runs.get(0).get("retriever").asText()).isEqualTo("sparse-bm25:all-minilm-l6-v2");
    assertThat(runs.get(0).get("metrics").get("accuracy@1").asDouble()).isEqualTo(1.0);
    assertThat(runs.get(1).get("diagnostics").get("max_query_dims").asInt()).isEqualTo(8);
  }

  @Test
  void learnedSparseAndMaxSimRetrieversRunThroughTheServices() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path models = tmp.resolve("models");
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    JsonNode runs =
        runs(
            "eval", "--dataset", data.toString(), "--retriever", "sparse:tiny-splade,multivector:tiny-colbert",
            "--models-dir", models.toString(), "--json", "--cache-dir", tmp.resolve("cache").toString());
    assertThat(runs).hasSize(2);
    assertThat(runs.get(0).get("retriever").asText()).isEqualTo("sparse:tiny-splade");
    assertThat(runs.get(1).get("retriever").asText()).isEqualTo("multivector:tiny-colbert");
    assertThat(runs.get(1).get("num_queries").asInt()).isEqualTo(3);
  }
}
