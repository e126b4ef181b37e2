package dev.tenbin.encoder.batching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.OverloadedException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.model.onnx.OnnxModel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class TokenBudgetBatcherTest {
  /** A fake forward pass recording the shapes it was given; output = the token count per input. */
  private static OnnxModel.Output fakeForward(long[][] ids, List<int[]> shapes) {
    int longest = 0;
    for (long[] row : ids) {
      longest = Math.max(longest, row.length);
    }
    shapes.add(new int[] {ids.length, longest});
    float[] values = new float[ids.length * longest];
    for (int b = 0; b < ids.length; b++) {
      values[b * longest] = ids[b].length;
    }
    return new OnnxModel.Output(values, new long[] {ids.length, longest, 1}, longest);
  }

  private static long[] tokens(int n) {
    return new long[n];
  }

  /** Waits (up to 20 s) until {@code condition} holds. */
  private static void awaitUntil(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
      Thread.sleep(2);
    }
  }

  /**
   * Waits until {@code closer} has marked the batcher closed and waits for its worker: the only
   * timed wait in {@code close()} is that join (taking the lock parks without a time limit).
   */
  private static void awaitJoiningTheWorker(Thread closer) throws InterruptedException {
    awaitUntil(() -> closer.getState() == Thread.State.TIMED_WAITING);
  }

  @Test
  void passesStayUnderTheAttentionBudgetAsWellAsTheTokenBudget() {
    List<int[]> shapes = new CopyOnWriteArrayList<>();
    // 10,000 tokens but 3 × 64² attention cells: four 64-token inputs fit the tokens, not the
    // attention; 16-token inputs fit 48 to a pass by attention (48 × 256 = 12,288 ≤ 12,288).
    BatchingLimits limits =
        new BatchingLimits(10_000, 256, 1000, Duration.ZERO, Duration.ZERO, 3 * 64 * 64);
    try (TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "t",
            ids -> fakeForward(ids, shapes),
            (out, i, n) -> out.values()[out.offset(i, 0)],
            limits)) {
      long[][] inputs = new long[60][];
      for (int i = 0; i < inputs.length; i++) {
        inputs[i] = tokens(i % 6 == 0 ? 64 : 16);
      }
      var served = batcher.submit(inputs, Cancellation.NEVER);
      for (int i = 0; i < inputs.length; i++) {
        assertThat(served.results().get(i)).isEqualTo((float) inputs[i].length);
      }
      for (int[] shape : shapes) {
        assertThat((long) shape[0] * shape[1]).isLessThanOrEqualTo(10_000);
        assertThat((long) shape[0] * shape[1] * shape[1]).isLessThanOrEqualTo(3 * 64 * 64);
      }
      // 50 short inputs: 48, then the last 2 with a long one (3 × 64²); then 9 long ones by 3.
      assertThat(shapes)
          .extracting(s -> s[0] + "x" + s[1])
          .containsExactly("48x16", "3x64", "3x64", "3x64", "3x64");
    }
  }

  @Test
  void aSingleInputLongerThanTheAttentionBudgetStillRunsAlone() {
    List<int[]> shapes = new CopyOnWriteArrayList<>();
    BatchingLimits limits =
        new BatchingLimits(100_000, 256, 1000, Duration.ZERO, Duration.ZERO, 1000);
    try (TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "t",
            ids -> fakeForward(ids, shapes),
            (out, i, n) -> out.values()[out.offset(i, 0)],
            limits)) {
      var served = batcher.submit(new long[][] {tokens(8192), tokens(8192)}, Cancellation.NEVER);
      assertThat(served.results()).containsExactly(8192f, 8192f);
      assertThat(shapes).extracting(s -> s[0]).containsExactly(1, 1);
    }
  }

  @Test
  void theDefaultTokenBudgetIsTheExecutionProvidersAndMustBeResolvedBeforeUse() {
    BatchingLimits cpu = BatchingLimits.DEFAULT.resolvedFor(false);
    assertThat(cpu.maxBatchTokens()).isEqualTo(BatchingLimits.CPU_BATCH_TOKENS);
    assertThat(cpu.maxBatchAttention()).isEqualTo(BatchingLimits.CPU_BATCH_TOKENS * 512L);
    assertThat(cpu.fits(1, BatchingLimits.CPU_BATCH_TOKENS)).isTrue();
    assertThat(cpu.fits(2, BatchingLimits.CPU_BATCH_TOKENS)).isFalse();
    // A budget the user set stays, on either provider.
    BatchingLimits given = new BatchingLimits(4096, 256, 1000, Duration.ZERO);
    assertThat(given.resolvedFor(true)).isEqualTo(given);
    assertThat(given.resolvedFor(false)).isEqualTo(given);
    // An attention budget the user set stays when the token budget is resolved.
    BatchingLimits attention =
        new BatchingLimits(BatchingLimits.BY_PROVIDER, 256, 1000, Duration.ZERO, Duration.ZERO, 99);
    assertThat(attention.resolvedFor(false).maxBatchAttention()).isEqualTo(99);
    assertThatThrownBy(() -> BatchingLimits.DEFAULT.fits(1, 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("resolvedFor");
    assertThatThrownBy(() -> new BatchingLimits(-1, 1, 1, Duration.ZERO))
        .hasMessageContaining("--max-batch-tokens must be positive, or 0");
  }

  @Test
  void theDefaultAttentionBudgetLeavesInputsUpTo512TokensToTheTokenBudget() {
    BatchingLimits limits = BatchingLimits.DEFAULT.resolvedFor(true);
    assertThat(limits.maxBatchTokens()).isEqualTo(16_384);
    assertThat(limits.maxBatchAttention()).isEqualTo(16_384L * 512);
    assertThat(limits.fits(32, 512)).isTrue();
    assertThat(limits.fits(128, 128)).isTrue();
    assertThat(limits.fits(2, 8192)).isFalse();
    assertThat(limits.fits(1, 8192)).isFalse();
    assertThatThrownBy(() -> new BatchingLimits(16, 1, 1, Duration.ZERO, Duration.ZERO, -1))
        .hasMessageContaining("--max-batch-attention");
  }

  @Test
  void passesStayUnderTheTokenBudgetAndGroupSimilarLengths() {
    List<int[]> shapes = new CopyOnWriteArrayList<>();
    try (TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "t",
            ids -> fakeForward(ids, shapes),
            (out, i, n) -> out.values()[out.offset(i, 0)],
            new BatchingLimits(40, 100, 1000, Duration.ZERO))) {
      long[][] inputs = {tokens(20), tokens(2), tokens(19), tokens(3), tokens(2), tokens(18)};
      var served = batcher.submit(inputs, Cancellation.NEVER);
      assertThat(served.results()).containsExactly(20f, 2f, 19f, 3f, 2f, 18f);
      for (int[] shape : shapes) {
        assertThat(shape[0] * shape[1]).isLessThanOrEqualTo(40);
      }
      // Short inputs are batched together rather than padded to the long ones.
      assertThat(shapes.getFirst()).containsExactly(3, 3);
      assertThat(served.timings().batches()).isEqualTo(shapes.size());
      assertThat(served.timings().paddedTokens())
          .isEqualTo(shapes.stream().mapToLong(s -> (long) s[0] * s[1]).sum());
    }
  }

  @Test
  void aFullQueueRefusesInsteadOfGrowing() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "t",
            ids -> {
              try {
                release.await(5, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return fakeForward(ids, new CopyOnWriteArrayList<>());
            },
            (out, i, n) -> 0f,
            new BatchingLimits(1000, 100, 4, Duration.ZERO))) {
      Thread first =
          Thread.ofVirtual()
              .start(() -> batcher.submit(new long[][] {tokens(1)}, Cancellation.NEVER));
      awaitUntil(() -> batcher.running() == 1); // the worker is now blocked in its pass
      Thread second =
          Thread.ofVirtual()
              .start(
                  () ->
                      batcher.submit(
                          new long[][] {tokens(1), tokens(1), tokens(1)}, Cancellation.NEVER));
      awaitUntil(() -> batcher.queued() == 3);
      assertThatThrownBy(
              () -> batcher.submit(new long[][] {tokens(1), tokens(1)}, Cancellation.NEVER))
          .isInstanceOf(OverloadedException.class)
          .hasMessageContaining("queue is full");
      release.countDown();
      first.join(5000);
      second.join(5000);
    }
  }

  @Test
  void aCancelledRequestGivesItsPlacesBackAtOnceAndIsNeverComputed() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<int[]> shapes = new CopyOnWriteArrayList<>();
    try (TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "t",
            ids -> {
              try {
                release.await(5, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return fakeForward(ids, shapes);
            },
            (out, i, n) -> 0f,
            new BatchingLimits(1000, 100, 2, Duration.ZERO))) {
      Thread blocker =
          Thread.ofVirtual()
              .start(() -> batcher.submit(new long[][] {tokens(1)}, Cancellation.NEVER));
      awaitUntil(() -> batcher.running() == 1); // the worker is now blocked in the blocker's pass
      AtomicBoolean cancelled = new AtomicBoolean();
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  Thread.sleep(100);
                } catch (InterruptedException ignored) {
                }
                cancelled.set(true);
              });
      assertThatThrownBy(() -> batcher.submit(new long[][] {tokens(7), tokens(7)}, cancelled::get))
          .isInstanceOf(CancelledException.class);
      // While the worker is still busy, the cancelled inputs have already left the queue ...
      assertThat(batcher.queued()).isZero();
      // ... so a request that would not have fitted beside them is accepted.
      var later = new java.util.concurrent.CompletableFuture<List<Float>>();
      Thread.ofVirtual()
          .start(
              () ->
                  later.complete(
                      batcher
                          .submit(new long[][] {tokens(5), tokens(5)}, Cancellation.NEVER)
                          .results()));
      release.countDown();
      blocker.join(5000);
      assertThat(later.get(5, TimeUnit.SECONDS)).hasSize(2);
      assertThat(shapes).noneMatch(shape -> shape[1] == 7);
    }
  }

  /** A forward pass that blocks until released, telling when it has started. */
  private static final class GatedForward {
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final java.util.concurrent.atomic.AtomicInteger passes =
        new java.util.concurrent.atomic.AtomicInteger();
    final AtomicBoolean inside = new AtomicBoolean();

    OnnxModel.Output run(long[][] ids) {
      passes.incrementAndGet();
      inside.set(true);
      started.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        inside.set(false);
      }
      return fakeForward(ids, new CopyOnWriteArrayList<>());
    }
  }

  @Test
  void closeWaitsForTheRunningPassThenRefusesWhatWaitsAndJoinsTheWorker() throws Exception {
    GatedForward forward = new GatedForward();
    TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "gated",
            forward::run,
            (out, i, n) -> out.values()[out.offset(i, 0)],
            new BatchingLimits(1000, 100, 100, Duration.ZERO));
    var running =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> batcher.submit(new long[][] {tokens(3)}, Cancellation.NEVER).results());
    assertThat(forward.started.await(10, TimeUnit.SECONDS)).isTrue();
    var waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> batcher.submit(new long[][] {tokens(4)}, Cancellation.NEVER).results());
    while (batcher.queued() == 0) {
      Thread.sleep(5);
    }
    Thread closer = Thread.ofPlatform().start(batcher::close);
    awaitJoiningTheWorker(closer);
    assertThat(closer.isAlive()).as("close waits for the pass in flight").isTrue();
    assertThat(forward.inside).isTrue();
    forward.release.countDown();
    closer.join(10_000);
    assertThat(closer.isAlive()).isFalse();
    assertThat(running.get(10, TimeUnit.SECONDS)).containsExactly(3f);
    assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(UnavailableException.class);
    assertThat(forward.passes).as("nothing runs after close").hasValue(1);
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().equals("batcher-gated"));
    assertThatThrownBy(() -> batcher.submit(new long[][] {tokens(1)}, Cancellation.NEVER))
        .isInstanceOf(UnavailableException.class);
  }

  @Test
  void closingBetweenPassesLeavesTheRemainingPassesUnrun() throws Exception {
    GatedForward forward = new GatedForward();
    // A budget of 4 tokens: three inputs of 4 tokens need three passes.
    TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "split",
            forward::run,
            (out, i, n) -> 0f,
            new BatchingLimits(4, 100, 100, Duration.ZERO));
    var request =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () ->
                batcher.submit(new long[][] {tokens(4), tokens(4), tokens(4)}, Cancellation.NEVER));
    assertThat(forward.started.await(10, TimeUnit.SECONDS)).isTrue();
    Thread closer = Thread.ofPlatform().start(batcher::close);
    awaitJoiningTheWorker(closer);
    forward.release.countDown();
    closer.join(10_000);
    assertThatThrownBy(() -> request.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(UnavailableException.class);
    assertThat(forward.passes).hasValue(1);
  }

  @Test
  void placesReservedForTokenizationCountAgainstTheQueueBound() {
    try (TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "r",
            ids -> fakeForward(ids, new CopyOnWriteArrayList<>()),
            (out, i, n) -> 0f,
            new BatchingLimits(1000, 100, 5, Duration.ZERO))) {
      var first = batcher.reserve(3);
      assertThat(batcher.reserved()).isEqualTo(3);
      assertThatThrownBy(() -> batcher.reserve(3))
          .isInstanceOfSatisfying(
              OverloadedException.class, e -> assertThat(e.retryAfter()).isPositive());
      var second = batcher.reserve(2);
      assertThat(
              batcher
                  .submit(second, new long[][] {tokens(1), tokens(2)}, Cancellation.NEVER)
                  .results())
          .hasSize(2);
      second.close();
      first.close(); // a request that failed while tokenizing gives its places back
      assertThat(batcher.reserved()).isZero();
      assertThat(batcher.reserve(5).places()).isEqualTo(5);
    }
  }

  @Test
  void workAheadLongerThanTheQueueWaitBoundIsRefusedWithARetryDelay() throws Exception {
    GatedForward forward = new GatedForward();
    forward.release.countDown(); // passes run at once, but take measurable time below
    TokenBudgetBatcher<Float> batcher =
        new TokenBudgetBatcher<>(
            "slow",
            ids -> {
              try {
                Thread.sleep(20);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return forward.run(ids);
            },
            (out, i, n) -> 0f,
            new BatchingLimits(1000, 1, 1000, Duration.ZERO, Duration.ofMillis(50)));
    try (batcher) {
      // One pass measures ~20 ms per input (batches of one).
      batcher.submit(new long[][] {tokens(1)}, Cancellation.NEVER);
      // With 10 inputs ahead (~200 ms of work) a further request would wait over 50 ms.
      var ahead = batcher.reserve(10);
      assertThatThrownBy(() -> batcher.reserve(1))
          .isInstanceOfSatisfying(
              OverloadedException.class,
              e -> {
                assertThat(e.getMessage()).contains("busy");
                assertThat(e.retryAfter()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
              });
      ahead.close();
      assertThat(batcher.reserve(1).places()).as("nothing ahead: admitted").isEqualTo(1);
    }
  }
}
