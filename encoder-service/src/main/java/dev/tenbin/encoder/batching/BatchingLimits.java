package dev.tenbin.encoder.batching;

import java.time.Duration;

/**
 * Limits of token-budget batching, as text-embeddings-inference sets them.
 *
 * @param maxBatchTokens cap on padded tokens (batch size × longest input) per forward pass; {@link
 *     #BY_PROVIDER} (0) leaves it to the execution provider ({@link #resolvedFor})
 * @param maxBatchSize cap on inputs per forward pass
 * @param maxQueuedInputs inputs waiting or being tokenized at most; more is refused
 *     (RESOURCE_EXHAUSTED)
 * @param maxQueueDelay how long the first waiting input may wait for others to fill its batch
 * @param maxQueueWait a request is refused (RESOURCE_EXHAUSTED with a retry delay) when the wait
 *     before its work would pass this: the time its call has waited since it arrived (for a handler
 *     thread, behind other calls) plus the work ahead of it in the queue at the throughput measured
 *     so far; zero = no bound
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

  /** {@link #maxBatchTokens} that the execution provider decides ({@link #resolvedFor}). */
  public static final int BY_PROVIDER = 0;

  /**
   * The token budget on a GPU: large passes keep its thousands of cores busy (the budget of
   * text-embeddings-inference).
   */
  public static final int GPU_BATCH_TOKENS = 16_384;

  /**
   * The token budget on CPUs: passes of a few short documents are as fast per token as any, while
   * passes of many pad short inputs to long ones and fall out of the cores' caches. On the 2-core
   * development machine bge-small-en-v1.5 encoded 240 xquad-en paragraphs at 20.4–21.7 documents/s
   * with 512 tokens a pass, 18.8–20.8 with 2,048 and 13.3–14.2 with 16,384 (BENCHMARKS.md, "Encoder
   * against the machine's peak and transformers.js").
   */
  public static final int CPU_BATCH_TOKENS = 512;

  /** The defaults, with the token budget left to the execution provider. */
  public static final BatchingLimits DEFAULT =
      new BatchingLimits(BY_PROVIDER, 256, 100_000, Duration.ofMillis(2));

  public BatchingLimits {
    if (maxBatchAttention < 0) {
      throw new IllegalArgumentException(
          "--max-batch-attention must not be negative, got " + maxBatchAttention);
    }
    if (maxBatchAttention == 0) {
      // Left 0 while the token budget is the provider's: derived when it is resolved.
      maxBatchAttention = (long) maxBatchTokens * DEFAULT_ATTENTION_LENGTH;
    }
    if (maxBatchTokens < 0) {
      throw new IllegalArgumentException(
          "--max-batch-tokens must be positive, or 0 for the execution provider's default, got "
              + maxBatchTokens);
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

  /**
   * These limits with the token budget of the execution provider ({@link #CPU_BATCH_TOKENS} or
   * {@link #GPU_BATCH_TOKENS}) where it is {@link #BY_PROVIDER}; unchanged otherwise.
   */
  public BatchingLimits resolvedFor(boolean cuda) {
    if (maxBatchTokens != BY_PROVIDER) {
      return this;
    }
    int tokens = cuda ? GPU_BATCH_TOKENS : CPU_BATCH_TOKENS;
    long attention = maxBatchAttention == 0 ? 0 : maxBatchAttention;
    return new BatchingLimits(
        tokens, maxBatchSize, maxQueuedInputs, maxQueueDelay, maxQueueWait, attention);
  }

  /** Whether a pass of {@code inputs} inputs padded to {@code longest} tokens fits both budgets. */
  public boolean fits(int inputs, int longest) {
    if (maxBatchTokens == BY_PROVIDER) {
      throw new IllegalStateException("the token budget is unresolved: call resolvedFor first");
    }
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

  /** The same limits with another cap on inputs per forward pass. */
  public BatchingLimits withMaxBatchSize(int size) {
    return new BatchingLimits(
        maxBatchTokens, size, maxQueuedInputs, maxQueueDelay, maxQueueWait, maxBatchAttention);
  }
}
