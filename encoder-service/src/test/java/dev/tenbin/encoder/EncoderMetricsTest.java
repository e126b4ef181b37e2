package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.testing.models.TinyModels;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The encoder's named meters move with the work, whether bound before or after a model loads. */
class EncoderMetricsTest {
  @TempDir Path tmp;

  private static double gauge(io.micrometer.core.instrument.MeterRegistry registry, String name) {
    return registry.get(name).tag("model", "tiny-dense").gauge().value();
  }

  @Test
  void queueDepthInFlightInputsBatchTokensAndLoadedModelsAreMeasured() throws Exception {
    TinyModels.dense(tmp.resolve("models"), "tiny-dense", false);
    // The first waiting input waits up to 1.5 s for company, so inputs can be seen queued.
    BatchingLimits slowToStart = new BatchingLimits(1_000_000, 256, 100, Duration.ofMillis(1500));
    try (EncoderCore core =
        new EncoderCore(
            EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
                .withBatching(slowToStart))) {
      SimpleMeterRegistry early = new SimpleMeterRegistry();
      core.bindTo(early);
      assertThat(early.get("tenbin.encoder.models.loaded").gauge().value()).isZero();
      CompletableFuture<?> waiting =
          CompletableFuture.runAsync(
              () ->
                  core.encodeDense(
                      "tiny-dense",
                      List.of("apple", "banana cherry"),
                      false,
                      0,
                      Cancellation.NEVER));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (early.find("tenbin.encoder.queue.inputs").gauge() == null
          || gauge(early, "tenbin.encoder.queue.inputs") < 2) {
        assertThat(System.nanoTime()).as("inputs seen waiting").isLessThan(deadline);
        Thread.sleep(10);
      }
      assertThat(gauge(early, "tenbin.encoder.inflight.inputs")).isEqualTo(2);
      assertThat(early.get("tenbin.encoder.models.loaded").gauge().value()).isEqualTo(1);
      waiting.get(20, TimeUnit.SECONDS);
      assertThat(gauge(early, "tenbin.encoder.queue.inputs")).isZero();
      assertThat(gauge(early, "tenbin.encoder.inflight.inputs")).isZero();
      DistributionSummary tokens =
          early.get("tenbin.encoder.batch.tokens").tag("model", "tiny-dense").summary();
      assertThat(tokens.count()).isEqualTo(1);
      // [CLS] banana cherry [SEP] is the longest: one pass of 2 inputs × 4 tokens.
      assertThat(tokens.totalAmount()).isEqualTo(8);

      // A registry bound after the model loaded (a server binds once its host is up) gets the
      // meters
      // too, with the distribution's histogram buckets.
      PrometheusMeterRegistry late = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      core.bindTo(late);
      core.encodeDense("tiny-dense", List.of("fig"), false, 0, Cancellation.NEVER);
      String scrape = late.scrape();
      assertThat(scrape).contains("tenbin_encoder_batch_tokens_bucket{model=\"tiny-dense\"");
      assertThat(scrape).contains("tenbin_encoder_queue_inputs{model=\"tiny-dense\"}");
      assertThat(scrape).contains("tenbin_encoder_models_loaded 1.0");
    }
  }
}
