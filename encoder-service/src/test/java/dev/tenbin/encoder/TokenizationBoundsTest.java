package dev.tenbin.encoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.CancelledException;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.OverloadedException;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokenization is bounded work: a request reserves its queue places before it is tokenized, stops
 * tokenizing when its caller goes (giving the places back), and cannot ask for more characters than
 * the per-request cap.
 */
class TokenizationBoundsTest {
  private static final String MODEL = "all-minilm-l6-v2";
  @TempDir Path tmp;

  /** ~100,000 characters of punctuation-separated words: no whitespace, so no prefix shortcut. */
  private static final String SLOW_TEXT = "retrieval,".repeat(10_000);

  private EncoderCore core(BatchingLimits limits, long maxRequestChars) {
    return new EncoderCore(
        EncoderServiceConfig.embedded(tmp.resolve("models"), tmp.resolve("cache"))
            .withBatching(limits)
            .withMaxRequestChars(maxRequestChars));
  }

  @Test
  void aCancelledRequestStopsTokenizingAndGivesItsPlacesBack() throws Exception {
    try (EncoderCore core = core(BatchingLimits.DEFAULT, Long.MAX_VALUE)) {
      LoadedModel model = core.model(MODEL);
      List<String> texts = Collections.nCopies(500, SLOW_TEXT);
      AtomicBoolean gone = new AtomicBoolean();
      AtomicInteger asked = new AtomicInteger();
      CountDownLatch started = new CountDownLatch(1);
      CompletableFuture<Throwable> call =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  core.encodeDense(
                      MODEL,
                      texts,
                      false,
                      0,
                      () -> {
                        started.countDown();
                        asked.incrementAndGet();
                        return gone.get();
                      });
                  return null;
                } catch (RuntimeException e) {
                  return e;
                }
              });
      assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
      while (model.inFlightInputs() != 500) {
        Thread.sleep(5); // the request's 500 places are reserved while it is tokenized
      }
      gone.set(true);
      assertThat(call.get(60, TimeUnit.SECONDS)).isInstanceOf(CancelledException.class);
      assertThat(asked.get()).as("stopped between texts, long before the 500th").isLessThan(500);
      assertThat(model.inFlightInputs()).isZero();
    }
  }

  @Test
  void requestsBeingTokenizedCountAgainstTheQueueBound() throws Exception {
    try (EncoderCore core =
        core(new BatchingLimits(16_384, 256, 40, Duration.ofMillis(2)), Long.MAX_VALUE)) {
      core.model(MODEL);
      AtomicBoolean gone = new AtomicBoolean();
      CountDownLatch started = new CountDownLatch(1);
      CompletableFuture<Void> tokenizing =
          CompletableFuture.runAsync(
              () -> {
                try {
                  core.encodeDense(
                      MODEL,
                      Collections.nCopies(30, SLOW_TEXT),
                      false,
                      0,
                      () -> {
                        started.countDown();
                        return gone.get();
                      });
                } catch (CancelledException expected) {
                  // ended by the test
                }
              });
      assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
      // 30 places are held by a request still tokenizing: 20 more do not fit under 40.
      assertThatThrownBy(
              () ->
                  core.encodeDense(MODEL, Collections.nCopies(20, "short"), false, 0, () -> false))
          .isInstanceOfSatisfying(
              OverloadedException.class, e -> assertThat(e.retryAfter()).isPositive());
      gone.set(true);
      tokenizing.get(60, TimeUnit.SECONDS);
      assertThat(
              core.encodeDense(MODEL, Collections.nCopies(20, "short"), false, 0, () -> false)
                  .vectors())
          .hasSize(20);
    }
  }

  @Test
  void aRequestOverTheCharacterCapIsRefusedBeforeAnyWork() {
    try (EncoderCore core = core(BatchingLimits.DEFAULT, 250_000)) {
      assertThatThrownBy(
              () ->
                  core.encodeDense(MODEL, Collections.nCopies(3, SLOW_TEXT), false, 0, () -> false))
          .isInstanceOfSatisfying(
              InvalidInputException.class,
              e -> {
                assertThat(e.field()).isEqualTo("texts");
                assertThat(e.getMessage()).contains("300000").contains("250000");
              });
      assertThat(core.loadedModels()).as("refused before the model was even loaded").isEmpty();
    }
  }
}
