package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
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
    TinyModels.crossEncoder(models, "tiny-ce");
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
    CliRunner inline = bench("--pairs", "4", "--warm-up-passes", "3", "--passes", "2");
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
    assertThat(inlineJson.get("warm_up_passes").asInt()).isEqualTo(3);
    assertThat(inlineJson.get("passes").asInt()).isEqualTo(2);
    assertThat(byIdJson.get("warm_up_passes").asInt()).as("the default").isEqualTo(100);
    assertThat(byIdJson.get("passes").asInt()).as("the default").isEqualTo(10);
    for (JsonNode json : java.util.List.of(inlineJson, byIdJson)) {
      // The scoring the server reported is part of what the gRPC side took, and so on.
      double grpcMicrosPerRequest = 1e6 * 4 / json.get("grpc_pairs_per_s").asDouble();
      assertThat(json.get("grpc_server_scoring_us_per_request").asDouble())
          .isPositive()
          .isLessThan(grpcMicrosPerRequest);
      double inProcessMicrosPerRequest = 1e6 * 4 / json.get("in_process_pairs_per_s").asDouble();
      assertThat(json.get("in_process_scoring_us_per_request").asDouble())
          .isPositive()
          .isLessThan(inProcessMicrosPerRequest);
    }
  }

  @Test
  void aServerCpuRunWarmsUpLongerByDefault() {
    BenchCommand.Rerank plain = new BenchCommand.Rerank();
    new picocli.CommandLine(plain).parseArgs("--model", "dense:m", "--dataset", "d");
    BenchCommand.Rerank serverCpu = new BenchCommand.Rerank();
    new picocli.CommandLine(serverCpu)
        .parseArgs("--model", "dense:m", "--dataset", "d", "--server-cpu");
    BenchCommand.Rerank chosen = new BenchCommand.Rerank();
    new picocli.CommandLine(chosen)
        .parseArgs("--model", "dense:m", "--dataset", "d", "--server-cpu", "--warm-up-passes", "7");

    assertThat(plain.warmUpPasses()).isEqualTo(100);
    // 10,000 requests of the default 20 queries.
    assertThat(serverCpu.warmUpPasses()).isEqualTo(500);
    assertThat(chosen.warmUpPasses()).isEqualTo(7);
  }

  @Test
  void atLeastOnePassIsMeasured() {
    CliRunner result = bench("--pairs", "4", "--passes", "0");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--passes must be at least 1, got 0");
  }

  @Test
  void theWarmUpMayBeSkippedButNotNegative() {
    CliRunner none = bench("--pairs", "4", "--warm-up-passes", "0", "--passes", "1");
    CliRunner negative = bench("--pairs", "4", "--warm-up-passes", "-1");

    assertThat(none.exitCode()).as(none.err()).isZero();
    assertThat(negative.exitCode()).isEqualTo(2);
    assertThat(negative.err()).contains("--warm-up-passes must be at least 0, got -1");
  }

  @Test
  void byIdNeedsNoMorePairsThanTheCorpusHolds() {
    CliRunner result = bench("--documents-by-id", "--pairs", "5");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--documents-by-id needs --pairs at most the corpus size");
  }
}
