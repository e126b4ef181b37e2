package dev.tenbin.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench bm25}: what it reports, and that the ceilings follow from the times it reports. */
class BenchBm25Test {
  @TempDir Path tmp;
  private Path dataset;

  @BeforeEach
  void fixtures() throws Exception {
    dataset = TinyBeir.write(tmp.resolve("beir"));
  }

  private CliRunner bench(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of("bench", "bm25", "--dataset", dataset.toString(), "--language", "en"));
    args.addAll(Arrays.asList(extra));
    return CliRunner.run(args.toArray(String[]::new));
  }

  @Test
  void serverCpuComesFromTheServiceInItsOwnProcessAtEachLevel() throws Exception {
    CliRunner run =
        bench(
            "--server-cpu",
            "--in-flight",
            "1,3",
            "--searches",
            "300",
            "--warm-up-passes",
            "20",
            "--json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("searches_per_level").asInt()).isEqualTo(300);
    assertThat(json.get("levels").findValuesAsText("in_flight")).containsExactly("1", "3");
    for (JsonNode level : json.get("levels")) {
      // 300 calls take tens of milliseconds of the service's CPU: several of the OS's ticks.
      double server = level.get("server_cpu_us_per_call").asDouble();
      assertThat(server).isPositive();
      assertThat(level.get("server_over_in_process_cpu").asDouble())
          .isCloseTo(server / level.get("in_process_cpu_us_per_query").asDouble(), offset(1e-9));
      assertThat(level.get("grpc_over_in_process_throughput").asDouble())
          .isCloseTo(
              level.get("grpc_queries_per_s").asDouble()
                  / level.get("in_process_queries_per_s").asDouble(),
              offset(1e-9));
    }
  }

  @Test
  void serverCpuLevelsMustBePositive() {
    CliRunner run = bench("--server-cpu", "--in-flight", "0");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("every --in-flight must be at least 1, got [0]");
  }

  @Test
  void jsonReportsTheBareGrpcJavaCallsBesideTheSearches() throws Exception {
    CliRunner run = bench("--passes", "2", "--warm-up-passes", "1", "--threads", "1", "--json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("passes").asInt()).isEqualTo(2);
    assertThat(json.get("warm_up_passes").asInt()).isEqualTo(1);
    double streamQueries = json.get("grpc_stream_queries_per_s").asDouble();
    assertThat(json.get("stream_pipeline_window").asInt()).isEqualTo(8);
    assertThat(json.get("query_grpc_stream_pipelined_over_in_process").asDouble())
        .isCloseTo(
            json.get("grpc_stream_pipelined_queries_per_s").asDouble()
                / json.get("in_process_queries_per_s").asDouble(),
            offset(1e-9));
    assertThat(streamQueries).isPositive();
    assertThat(json.get("grpc_stream_pipelined_server_search_us_per_query").asDouble())
        .isPositive()
        .isLessThan(1e6 / json.get("grpc_stream_pipelined_queries_per_s").asDouble());
    assertThat(json.get("grpc_stream_us_per_query").asDouble())
        .isCloseTo(1e6 / streamQueries, offset(1e-6));
    assertThat(json.get("query_grpc_stream_over_in_process").asDouble())
        .isCloseTo(streamQueries / json.get("in_process_queries_per_s").asDouble(), offset(1e-9));
    double inProcessMicros = json.get("in_process_us_per_query").asDouble();
    double bareSearchLength = json.get("grpc_bare_search_length_call_us_per_call").asDouble();
    assertThat(bareSearchLength).isGreaterThanOrEqualTo(inProcessMicros * 0.999);
    assertThat(json.get("query_grpc_over_in_process_bare_search_length_ceiling").asDouble())
        .isCloseTo(inProcessMicros / bareSearchLength, offset(1e-9));
    List<Double> work = new ArrayList<>();
    for (JsonNode call : json.get("grpc_bare_work_curve")) {
      double workMicros = call.get("work_us").asDouble();
      double callMicros = call.get("call_us").asDouble();
      work.add(workMicros);
      assertThat(callMicros).isGreaterThanOrEqualTo(workMicros);
      assertThat(call.get("beyond_work_us").asDouble())
          .isCloseTo(callMicros - workMicros, offset(1e-9));
    }
    assertThat(work).containsExactly(0.0, 100.0, 200.0, 400.0, 800.0);
  }

  @Test
  void textNamesTheWarmUpAndEachBareCallOfTheCurve() {
    CliRunner run = bench("--passes", "1", "--warm-up-passes", "2", "--threads", "1");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains(" passes after 2 warm-up passes");
    assertThat(run.out()).contains("gRPC search stream").contains("stream/in-process");
    assertThat(run.out())
        .contains("bare gRPC-Java call that works as long as an in-process search")
        .contains("handler work us");
    assertThat(run.out().lines().filter(line -> line.matches("\\s+\\d+\\s+\\d+\\s+-?\\d+")))
        .hasSize(5);
  }

  @Test
  void passesBelowOneAndNegativeWarmUpsAreRefusedWithAMessage() {
    CliRunner noPasses = bench("--passes", "0");
    CliRunner negativeWarmUp = bench("--warm-up-passes", "-1");

    assertThat(noPasses.exitCode()).isNotZero();
    assertThat(noPasses.err()).contains("--passes must be at least 1");
    assertThat(negativeWarmUp.exitCode()).isNotZero();
    assertThat(negativeWarmUp.err()).contains("--warm-up-passes must be at least 0");
  }
}
