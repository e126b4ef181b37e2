package dev.tenbin.bench.rerank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.bench.compare.LoadLevels;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark.Level;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark.Result;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark.Service;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rerank server-CPU figures: per-request arithmetic, the JSON rows and the table. */
class RerankServerCpuReportTest {
  private static final List<Service> BOTH = List.of(Service.RERANK, Service.ENCODER);

  /** 100 calls in 0.5 s in-process using 20 ms of CPU; over gRPC 100 calls in 1 s. */
  private static Level level(int inFlight) {
    LoadLevels.Usage inProcess = new LoadLevels.Usage(100, 500_000_000L, List.of(20_000_000L));
    LoadLevels.Usage grpc =
        new LoadLevels.Usage(
            100,
            1_000_000_000L,
            List.of(9_000_000L, 18_000_000L, 3_000_000L)); // rerank, encoder, this
    return Level.of(inFlight, BOTH, inProcess, grpc);
  }

  @Test
  void serverCpuIsEveryServiceProcessesCpuPerRequestEachWithItsShare() {
    Level level = level(2);

    assertThat(level.inProcessCpuMicros()).isEqualTo(200.0);
    assertThat(level.inProcessRequestsPerSecond()).isEqualTo(200.0);
    assertThat(level.serverProcesses())
        .extracting(RerankServerCpuBenchmark.ProcessCpu::service)
        .containsExactly(Service.RERANK, Service.ENCODER);
    assertThat(level.serverCpuMicros()).isEqualTo(270.0);
    assertThat(level.share(level.serverProcesses().get(0))).isCloseTo(1 / 3.0, offset(1e-12));
    assertThat(level.share(level.serverProcesses().get(1))).isCloseTo(2 / 3.0, offset(1e-12));
    assertThat(level.serverOverInProcessCpu()).isCloseTo(1.35, offset(1e-12));
    assertThat(level.clientCpuMicros()).isEqualTo(30.0);
    assertThat(level.grpcRequestsPerSecond()).isEqualTo(100.0);
    assertThat(level.grpcOverInProcessThroughput()).isEqualTo(0.5);
  }

  @Test
  void theGrpcSideNeedsAClockPerServiceAndThisProcesss() {
    LoadLevels.Usage usage = new LoadLevels.Usage(2, 1, List.of(1L, 1L));

    assertThatThrownBy(() -> Level.of(1, BOTH, usage, usage))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected one per service and this process's");
  }

  @Test
  void aBiEncoderRerankerCountsTheEncoderProcessAndACrossEncoderOnlyTheRerankOne() {
    assertThat(RerankServerCpuBenchmark.servicesFor("dense:bge-small-en-v1.5"))
        .containsExactly(Service.RERANK, Service.ENCODER);
    assertThat(RerankServerCpuBenchmark.servicesFor("ms-marco-MiniLM-L-6-v2"))
        .containsExactly(Service.RERANK);
  }

  @Test
  void jsonHasARowPerLevelWithEachProcesssCpuAndShare() {
    Result result = new Result("dense:m", 20, 100, 500, 2000, 2, BOTH, List.of(level(1), level(8)));

    JsonNode json = RerankServerCpuReport.json(result);

    assertThat(json.get("model").asText()).isEqualTo("dense:m");
    assertThat(json.get("requests_per_level").asInt()).isEqualTo(500);
    assertThat(json.get("warm_up_requests").asInt()).isEqualTo(2000);
    assertThat(json.get("server_processes").toString()).isEqualTo("[\"rerank\",\"encoder\"]");
    assertThat(json.get("levels").findValuesAsText("in_flight")).containsExactly("1", "8");
    JsonNode row = json.get("levels").get(1);
    assertThat(row.get("in_process_cpu_us_per_request").asDouble()).isEqualTo(200.0);
    assertThat(row.get("server_cpu_us_per_request").asDouble()).isEqualTo(270.0);
    assertThat(row.get("server_over_in_process_cpu").asDouble()).isCloseTo(1.35, offset(1e-12));
    assertThat(row.get("client_cpu_us_per_request").asDouble()).isEqualTo(30.0);
    assertThat(row.get("in_process_requests_per_s").asDouble()).isEqualTo(200.0);
    assertThat(row.get("grpc_requests_per_s").asDouble()).isEqualTo(100.0);
    assertThat(row.get("grpc_over_in_process_throughput").asDouble()).isEqualTo(0.5);
    JsonNode encoder = row.get("server_processes").get(1);
    assertThat(encoder.get("service").asText()).isEqualTo("encoder");
    assertThat(encoder.get("cpu_us_per_request").asDouble()).isEqualTo(180.0);
    assertThat(encoder.get("share").asDouble()).isCloseTo(2 / 3.0, offset(1e-12));
  }

  @Test
  void theTableHasAColumnPerServiceProcessAndARowPerLevel() {
    Result result = new Result("dense:m", 20, 100, 500, 2000, 2, BOTH, List.of(level(1), level(8)));
    StringWriter text = new StringWriter();

    RerankServerCpuReport.print(result, new PrintWriter(text, true));

    List<String> lines = text.toString().lines().toList();
    assertThat(lines.get(0))
        .startsWith("dense:m: 20 queries, 100 candidates per request, 500 requests per side")
        .endsWith("server CPU: rerank process + encoder process");
    assertThat(lines.get(1)).contains("rerank cpu us (share)", "encoder cpu us (share)");
    assertThat(lines.subList(2, lines.size())).hasSize(2);
    assertThat(lines.get(3).trim().split("\\s+"))
        .containsExactly(
            "8", "200.0", "270.0", "90.0", "(", "33%)", "180.0", "(", "67%)", "1.35", "30.0",
            "200.0", "100.0", "0.50");
  }
}
