package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.data.TinyBeir;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench rerank --server-cpu}: the rerank service (and the encoder service of a bi-encoder
 * reranker) in processes of their own, their CPU per request beside the in-process CPU, and the
 * processes stopped however the run ends.
 */
class BenchRerankServerCpuTest {
  @TempDir Path tmp;
  private Path dataset;
  private Path models;

  @BeforeEach
  void fixtures() throws Exception {
    dataset = TinyBeir.write(tmp.resolve("beir"));
    models = tmp.resolve("models");
    TinyModels.crossEncoder(models, "tiny-ce");
    TinyModels.dense(models, "tiny-dense", false);
  }

  private CliRunner bench(String model, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "rerank",
                "--model",
                model,
                "--dataset",
                dataset.toString(),
                "--models-dir",
                models.toString(),
                "--cache-dir",
                tmp.resolve("cache").toString(),
                "--queries",
                "2",
                "--pairs",
                "4",
                "--server-cpu"));
    args.addAll(Arrays.asList(extra));
    return CliRunner.run(args.toArray(String[]::new));
  }

  private static List<ProcessHandle> liveChildren() {
    return ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
  }

  @Test
  void aCrossEncodersServerCpuIsTheRerankProcesssAtEachLevel() throws Exception {
    CliRunner run =
        bench(
            "tiny-ce",
            "--in-flight",
            "1,3",
            "--requests",
            "301",
            "--warm-up-passes",
            "5",
            "--json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("requests_per_level").asInt()).as("two equal rounds").isEqualTo(300);
    assertThat(json.get("warm_up_requests").asInt()).isEqualTo(10);
    assertThat(json.get("server_processes").toString()).isEqualTo("[\"rerank\"]");
    assertThat(json.get("levels").findValuesAsText("in_flight")).containsExactly("1", "3");
    for (JsonNode level : json.get("levels")) {
      // 300 calls take tens of milliseconds of the service's CPU: several of the OS's ticks.
      double server = level.get("server_cpu_us_per_request").asDouble();
      assertThat(server).isPositive();
      JsonNode rerank = level.get("server_processes").get(0);
      assertThat(rerank.get("cpu_us_per_request").asDouble()).isEqualTo(server);
      assertThat(rerank.get("share").asDouble()).isEqualTo(1.0);
      assertThat(level.get("server_over_in_process_cpu").asDouble())
          .isCloseTo(server / level.get("in_process_cpu_us_per_request").asDouble(), offset(1e-9));
    }
    assertThat(liveChildren()).isEmpty();
  }

  @Test
  void aBiEncoderRerankersServerCpuAddsTheEncoderProcesssShare() throws Exception {
    CliRunner run =
        bench("dense:tiny-dense", "--in-flight", "2", "--requests", "300", "--warm-up-passes", "5");

    assertThat(run.exitCode()).as(run.err()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .startsWith("dense:tiny-dense: 2 queries, 4 candidates per request, 300 requests")
        .endsWith("server CPU: rerank process + encoder process");
    assertThat(lines.get(1)).contains("rerank cpu us (share)", "encoder cpu us (share)");
    assertThat(lines).hasSize(3);
    assertThat(lines.get(2).trim()).startsWith("2 ");
    assertThat(liveChildren()).isEmpty();
  }

  @Test
  void theServiceProcessesAreStoppedWhenTheRunFails() {
    assertThat(liveChildren()).as("before").isEmpty();

    // Both processes start; the first comparison then fails: the encoder needs a model name.
    CliRunner run = bench("dense:", "--in-flight", "1", "--requests", "2");

    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err()).contains("model_id is required (INVALID_ARGUMENT)");
    assertThat(liveChildren()).isEmpty();
  }

  @Test
  void levelsRequestsAndByIdCandidatesAreCheckedBeforeTheDatasetIsRead() {
    String[] common = {"bench", "rerank", "--model", "m", "--dataset", "no-such-folder"};
    CliRunner level = CliRunner.run(with(common, "--server-cpu", "--in-flight", "2,0"));
    CliRunner requests = CliRunner.run(with(common, "--server-cpu", "--requests", "1"));
    CliRunner byId = CliRunner.run(with(common, "--server-cpu", "--documents-by-id"));

    assertThat(level.exitCode()).isEqualTo(2);
    assertThat(level.err()).contains("every --in-flight must be at least 1, got [2,0]");
    assertThat(requests.exitCode()).isEqualTo(2);
    assertThat(requests.err()).contains("--requests must be at least 2, got 1");
    assertThat(byId.exitCode()).isEqualTo(2);
    assertThat(byId.err()).contains("--documents-by-id is not measured with it");
  }

  private static String[] with(String[] common, String... extra) {
    String[] all = Arrays.copyOf(common, common.length + extra.length);
    System.arraycopy(extra, 0, all, common.length, extra.length);
    return all;
  }
}
