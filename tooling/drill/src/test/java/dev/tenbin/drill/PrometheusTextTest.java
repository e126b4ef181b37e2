package dev.tenbin.drill;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Values read from a service's /metrics text. */
class PrometheusTextTest {
  private static final String TEXT =
      """
      # HELP jvm_memory_used_bytes The amount of used memory
      # TYPE jvm_memory_used_bytes gauge
      jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 1.5E7
      jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 2.5E7
      jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 9.0E7
      jvm_memory_used_bytes_total_other 7
      jvm_gc_live_data_size_bytes 1.2345E7
      """;

  @Test
  void sumsTheSamplesWhoseLabelsMatch() {
    assertThat(PrometheusText.sum(TEXT, "jvm_memory_used_bytes", "area=\"heap\"")).isEqualTo(4.0E7);
  }

  @Test
  void readsAMetricWithoutLabelsAndIgnoresLongerNames() {
    assertThat(PrometheusText.sum(TEXT, "jvm_gc_live_data_size_bytes", "")).isEqualTo(1.2345E7);
    assertThat(PrometheusText.sum(TEXT, "jvm_memory_used_bytes", "")).isEqualTo(1.3E8);
  }

  @Test
  void anAbsentMetricIsZero() {
    assertThat(PrometheusText.sum(TEXT, "process_open_fds", "")).isZero();
  }
}
