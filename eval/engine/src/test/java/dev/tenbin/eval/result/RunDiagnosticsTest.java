package dev.tenbin.eval.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Typed diagnostics write the JSON the name-to-value maps wrote: the same names, in the order each
 * family put them, integers as integers and measured values as doubles.
 */
class RunDiagnosticsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void denseDiagnosticsKeepTheirNamesOrderAndNumberForms() throws Exception {
    RunDiagnostics dense =
        RunDiagnostics.builder()
            .bytesPerVector(384L)
            .latencies(120.5, 33.0)
            .similarity("dot")
            .hnswRecallVsExact(0.96875)
            .int8QueryClipRate(0.0)
            .build();

    assertThat(JSON.writeValueAsString(dense.asMap()))
        .isEqualTo(
            "{\"bytes_per_vector\":384,\"query_encode_latency_us\":120.5,"
                + "\"search_latency_us\":33.0,\"similarity\":\"dot\","
                + "\"hnsw_recall_vs_exact\":0.96875,\"int8_query_clip_rate\":0.0}");
  }

  @Test
  void sparseHybridAndRerankDiagnosticsKeepTheirOrder() throws Exception {
    assertThat(
            JSON.writeValueAsString(
                RunDiagnostics.builder().sparseDims(8, 256).latencies(1.0, 2.0).build().asMap()))
        .isEqualTo(
            "{\"max_query_dims\":8,\"max_document_dims\":256,"
                + "\"query_encode_latency_us\":1.0,\"search_latency_us\":2.0}");
    assertThat(
            JSON.writeValueAsString(
                RunDiagnostics.builder()
                    .fusion("min-max normalized, dense weight 0.5")
                    .latencies(null, 2.0)
                    .build()
                    .asMap()))
        .isEqualTo(
            "{\"fusion\":\"min-max normalized, dense weight 0.5\",\"search_latency_us\":2.0}");
    assertThat(
            JSON.writeValueAsString(
                RunDiagnostics.builder()
                    .candidateSet("hybrid", "bm25")
                    .coverage(1.0, 0.75, 3L)
                    .build()
                    .asMap()))
        .isEqualTo(
            "{\"candidate_set\":\"hybrid\",\"candidate_origin\":\"bm25\",\"query_coverage\":1.0,"
                + "\"relevant_document_coverage\":0.75,\"safeguard_positives\":3}");
  }

  @Test
  void storedCellsGetTheDiagnosticsSortedByName() throws Exception {
    RunDiagnostics multiVector =
        RunDiagnostics.builder().bytesPerToken(512L).latencies(4.0, 5.0).build();

    assertThat(JSON.writeValueAsString(new TreeMap<>(multiVector.asMap())))
        .isEqualTo(
            "{\"bytes_per_token\":512,\"query_encode_latency_us\":4.0,\"search_latency_us\":5.0}");
  }

  @Test
  void noDiagnosticsIsEmpty() {
    assertThat(RunDiagnostics.NONE.isEmpty()).isTrue();
    assertThat(RunDiagnostics.NONE.asMap()).isEmpty();
    assertThat(RunDiagnostics.builder().similarity("cosine").build().isEmpty()).isFalse();
  }
}
