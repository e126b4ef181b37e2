package dev.tenbin.encoder.batching;

import java.time.Duration;

/**
 * Limits of token-budget batching, as text-embeddings-inference sets them.
 *
 * @param maxBatchTokens cap on padded tokens (batch size × longest input) per forward pass
 * @param maxBatchSize cap on inputs per forward pass
 * @param maxQueuedInputs inputs waiting or being tokenized at most; more is refused
 *     (RESOURCE_EXHAUSTED)
 * @param maxQueueDelay how long the first waiting input may wait for others to fill its batch
 * @param maxQueueWait a request is refused (RESOURCE_EXHAUSTED with a retry delay) when the work
 *     ahead of it would take longer than this at the throughput measured so far; zero = no bound
 */
public record BatchingLimits(
    int maxBatchTokens,
    int maxBatchSize,
    int maxQueuedInputs,
    Duration maxQueueDelay,
    Duration maxQueueWait) {
  public static final BatchingLimits DEFAULT =
      new BatchingLimits(16_384, 256, 100_000, Duration.ofMillis(2));

  public BatchingLimits {
    if (maxBatchTokens < 1) {
      throw new IllegalArgumentException(
          "--max-batch-tokens must be positive, got " + maxBatchTokens);
    }
    if (maxBatchSize < 1) {
      throw new IllegalArgumentException("--max-batch-size must be positive, got " + maxBatchSize);
    }
    if (maxQueuedInputs < 1) {
      throw new IllegalArgumentException(
          "--max-queued-inputs must be positive, got " + maxQueuedInputs);
    }
    if (maxQueueDelay.isNegative()) {
      throw new IllegalArgumentException("--max-queue-delay-ms must not be negative");
    }
    if (maxQueueWait.isNegative()) {
      throw new IllegalArgumentException("--max-queue-wait-seconds must not be negative");
    }
  }

  /** Limits without a bound on the queue's expected wait. */
  public BatchingLimits(
      int maxBatchTokens, int maxBatchSize, int maxQueuedInputs, Duration maxQueueDelay) {
    this(maxBatchTokens, maxBatchSize, maxQueuedInputs, maxQueueDelay, Duration.ZERO);
  }
}
