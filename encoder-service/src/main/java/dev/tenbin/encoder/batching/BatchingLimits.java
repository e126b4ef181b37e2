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
 * @param maxBatchAttention cap on attention cells (batch size × longest input²) per forward pass,
 *     which bounds the attention's activation memory where {@code maxBatchTokens} alone does not
 *     (one 8,192-token input costs 512 times the attention of sixteen 512-token ones); 0 = {@code
 *     maxBatchTokens} × {@value #DEFAULT_ATTENTION_LENGTH}, which leaves inputs of up to {@value
 *     #DEFAULT_ATTENTION_LENGTH} tokens batched by the token budget alone. A single input always
 *     runs, however long.
 */
public record BatchingLimits(
    int maxBatchTokens,
    int maxBatchSize,
    int maxQueuedInputs,
    Duration maxQueueDelay,
    Duration maxQueueWait,
    long maxBatchAttention) {
  /** The input length up to which the default attention budget never binds before the tokens'. */
  public static final int DEFAULT_ATTENTION_LENGTH = 512;

  public static final BatchingLimits DEFAULT =
      new BatchingLimits(16_384, 256, 100_000, Duration.ofMillis(2));

  public BatchingLimits {
    if (maxBatchAttention < 0) {
      throw new IllegalArgumentException(
          "--max-batch-attention must not be negative, got " + maxBatchAttention);
    }
    if (maxBatchAttention == 0) {
      maxBatchAttention = (long) maxBatchTokens * DEFAULT_ATTENTION_LENGTH;
    }
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

  /** Limits with the default attention budget. */
  public BatchingLimits(
      int maxBatchTokens,
      int maxBatchSize,
      int maxQueuedInputs,
      Duration maxQueueDelay,
      Duration maxQueueWait) {
    this(maxBatchTokens, maxBatchSize, maxQueuedInputs, maxQueueDelay, maxQueueWait, 0);
  }

  /** Whether a pass of {@code inputs} inputs padded to {@code longest} tokens fits both budgets. */
  public boolean fits(int inputs, int longest) {
    return (long) inputs * longest <= maxBatchTokens
        && (long) inputs * longest * longest <= maxBatchAttention;
  }

  /** Limits without a bound on the queue's expected wait. */
  public BatchingLimits(
      int maxBatchTokens, int maxBatchSize, int maxQueuedInputs, Duration maxQueueDelay) {
    this(maxBatchTokens, maxBatchSize, maxQueuedInputs, maxQueueDelay, Duration.ZERO);
  }

  /** The same limits with another maximum queue delay (the bench's timing with and without it). */
  public BatchingLimits withMaxQueueDelay(Duration delay) {
    return new BatchingLimits(
        maxBatchTokens, maxBatchSize, maxQueuedInputs, delay, maxQueueWait, maxBatchAttention);
  }
}
