package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench index-scaling} on a tiny size: its JSON, ratios and plot (timings not asserted). */
class BenchIndexScalingTest {
  @TempDir Path dir;

  @Test
  void aTinyRunWritesEverySizeWithItsRatiosAndAPlot() throws Exception {
    Path plot = dir.resolve("plot/scaling.svg");
    CliRunner result =
        CliRunner.run(
            "bench",
            "index-scaling",
            "--sizes",
            "30,60",
            "--dimension",
            "16",
            "--queries",
            "3",
            "--min-seconds",
            "0",
            "--hnsw-max-size",
            "30",
            "--beams",
            "10,20",
            "--rescore-depths",
            "10,60",
            "--peak-gflops",
            "10",
            "--work-dir",
            dir.toString(),
            "--plot",
            plot.toString(),
            "--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode root = new ObjectMapper().readTree(result.out());
    assertThat(root.get("peak_fma_gflops").asDouble()).isEqualTo(10);
    JsonNode sizes = root.get("sizes");
    assertThat(sizes).hasSize(2);
    JsonNode small = sizes.get(0);
    assertThat(small.get("size").asInt()).isEqualTo(30);
    assertThat(small.get("file_bytes").asLong()).isEqualTo(30L * 16 * 4);
    assertThat(small.get("int8_speedup").asDouble())
        .isCloseTo(
            small.get("float_ms_per_query").asDouble() / small.get("int8_ms_per_query").asDouble(),
            within(1e-9));
    assertThat(small.get("float_fraction_of_peak").asDouble())
        .isCloseTo(small.get("float_gflops").asDouble() / 10, within(1e-9));
    assertThat(small.get("hnsw")).hasSize(3);
    assertThat(small.get("hnsw").get(0).get("beams")).hasSize(2);
    assertThat(sizes.get(1).get("hnsw")).isEmpty();
    JsonNode int8 = sizes.get(1).get("rescore").get(0);
    assertThat(int8.get("vectors").asText()).isEqualTo("int8");
    assertThat(int8.get("depths")).hasSize(2);
    // Depth 60 of 60 vectors re-scores all of them in float: the exact top 10.
    assertThat(int8.get("depths").get(1).get("recall_at_10").asDouble()).isEqualTo(1.0);
    assertThat(int8.get("depth_at_target_recall").asInt()).isBetween(10, 60);
    assertThat(Files.readString(plot)).startsWith("<svg").contains("binary scan");
  }

  @Test
  void hnswGraphsNamesTheGraphsBuiltAndAnUnknownOneIsRefused() throws Exception {
    CliRunner result =
        CliRunner.run(
            "bench",
            "index-scaling",
            "--sizes",
            "30",
            "--dimension",
            "16",
            "--queries",
            "3",
            "--min-seconds",
            "0",
            "--hnsw-max-size",
            "30",
            "--hnsw-graphs",
            "binary,int8",
            "--beams",
            "10",
            "--work-dir",
            dir.toString(),
            "--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode hnsw = new ObjectMapper().readTree(result.out()).get("sizes").get(0).get("hnsw");
    assertThat(hnsw).hasSize(2);
    assertThat(hnsw.get(0).get("vectors").asText()).isEqualTo("int8");
    assertThat(hnsw.get(1).get("vectors").asText()).isEqualTo("binary");

    CliRunner unknown =
        CliRunner.run("bench", "index-scaling", "--sizes", "30", "--hnsw-graphs", "fp16");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err()).contains("'fp16' is not float, int8 or binary");
  }

  @Test
  void hnswShardsReportsEachShardCountsMergedRecallAndQueriesPerSecond() throws Exception {
    CliRunner result =
        CliRunner.run(
            "bench",
            "index-scaling",
            "--sizes",
            "40",
            "--dimension",
            "16",
            "--queries",
            "3",
            "--min-seconds",
            "0",
            "--hnsw-max-size",
            "40",
            "--hnsw-graphs",
            "float",
            "--hnsw-shards",
            "1,2,4",
            "--beams",
            "10,40",
            "--work-dir",
            dir.toString(),
            "--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode sharded =
        new ObjectMapper().readTree(result.out()).get("sizes").get(0).get("hnsw_shards");
    assertThat(sharded).hasSize(3);
    for (int i = 0; i < 3; i++) {
      JsonNode curve = sharded.get(i);
      assertThat(curve.get("shards").asInt()).isEqualTo(new int[] {1, 2, 4}[i]);
      JsonNode wide = curve.get("beams").get(1);
      assertThat(wide.get("beam").asInt()).isEqualTo(40);
      // Beam 40 of 40 vectors asks each shard for all of its own: the merge is exact.
      assertThat(wide.get("merged_recall_at_10").asDouble()).isEqualTo(1.0);
      assertThat(wide.get("queries_per_s").asDouble()).isPositive();
    }
    CliRunner refused =
        CliRunner.run("bench", "index-scaling", "--sizes", "20", "--hnsw-shards", "0");
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err()).contains("shard count must be within 1..64");
  }

  @Test
  void aSizeBelowTheTopTenIsRefused() {
    CliRunner result = CliRunner.run("bench", "index-scaling", "--sizes", "5");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("each at least 10").doesNotContain("Exception");
    CliRunner shallow =
        CliRunner.run("bench", "index-scaling", "--sizes", "20", "--rescore-depths", "5");
    assertThat(shallow.exitCode()).isEqualTo(2);
    assertThat(shallow.err()).contains("rescore depth must be at least 10");
  }
}
