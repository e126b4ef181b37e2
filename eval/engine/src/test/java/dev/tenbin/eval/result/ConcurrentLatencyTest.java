package dev.tenbin.eval.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConcurrentLatencyTest {
  @Test
  void theDiagnosticsCarryTheFourFiguresUnderTheirKeysAndReadBack() {
    RunDiagnostics diagnostics =
        RunDiagnostics.builder()
            .concurrentLatency(new ConcurrentLatency(4, 900, 2_500, 3_100))
            .build();

    Map<String, Object> map = diagnostics.asMap();
    assertThat(map)
        .containsEntry("concurrent_latency_in_flight", 4)
        .containsEntry("concurrent_latency_p50_us", 900.0)
        .containsEntry("concurrent_latency_p99_us", 2_500.0)
        .containsEntry("concurrent_queries_per_second", 3_100.0);
    assertThat(diagnostics.concurrentLatency())
        .isEqualTo(ConcurrentLatency.fromDiagnostics(map))
        .isEqualTo(new ConcurrentLatency(4, 900, 2_500, 3_100));
    // the vectors per document of a chunked variant keep them
    assertThat(diagnostics.withVectorsPerDocument(2.5).concurrentLatency())
        .isEqualTo(diagnostics.concurrentLatency());
  }

  @Test
  void aCellStoredBeforeTheMeasurementHasNone() {
    assertThat(RunDiagnostics.NONE.asMap()).doesNotContainKey("concurrent_latency_in_flight");
    assertThat(RunDiagnostics.NONE.concurrentLatency()).isNull();
    assertThat(ConcurrentLatency.fromDiagnostics(null)).isNull();
    assertThat(ConcurrentLatency.fromDiagnostics(Map.of("search_latency_us", 100.0))).isNull();
    // a stored cell read back from JSON: whole numbers may come back as integers
    assertThat(
            ConcurrentLatency.fromDiagnostics(
                Map.of(
                    "concurrent_latency_in_flight",
                    8,
                    "concurrent_latency_p50_us",
                    700,
                    "concurrent_latency_p99_us",
                    1_900.5,
                    "concurrent_queries_per_second",
                    40.25)))
        .isEqualTo(new ConcurrentLatency(8, 700, 1_900.5, 40.25));
  }

  @Test
  void aQueryThroughSeveralPartsAddsTheirLatenciesAndTheirTimePerQuery() {
    ConcurrentLatency serial =
        ConcurrentLatency.serial(
            List.of(
                new ConcurrentLatency(4, 100, 300, 1_000),
                new ConcurrentLatency(4, 900, 2_000, 250)));

    assertThat(serial.inFlight()).isEqualTo(4);
    assertThat(serial.p50Us()).isEqualTo(1_000);
    assertThat(serial.p99Us()).isEqualTo(2_300);
    // 1 ms + 4 ms per query: 200 per second
    assertThat(serial.queriesPerSecond()).isCloseTo(200, within(1e-9));
  }

  @Test
  void partsMeasuredDifferentlyOrNotAtAllHaveNoSerialFigure() {
    ConcurrentLatency four = new ConcurrentLatency(4, 100, 300, 1_000);
    assertThat(ConcurrentLatency.serial(List.of(four, new ConcurrentLatency(8, 100, 300, 1_000))))
        .isNull();
    assertThat(ConcurrentLatency.serial(Arrays.asList(four, null))).isNull();
    assertThat(ConcurrentLatency.serial(Arrays.asList(null, four))).isNull();
    assertThat(ConcurrentLatency.serial(List.of())).isNull();
    assertThat(ConcurrentLatency.serial(List.of(four, new ConcurrentLatency(4, 0, 0, 0)))).isNull();
  }
}
