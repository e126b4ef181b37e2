package dev.tenbin.core;

import java.time.Duration;

/**
 * A bounded resource (a queue, a budget, the server's call slots) is full; the caller may retry
 * after {@link #retryAfter()} (sent to gRPC clients as {@code google.rpc.RetryInfo}).
 */
public final class OverloadedException extends TenbinException {
  /** The retry delay suggested when the thrower names none. */
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

  private final Duration retryAfter;

  public OverloadedException(String message) {
    this(message, DEFAULT_RETRY_AFTER);
  }

  public OverloadedException(String message, Duration retryAfter) {
    super(null, message);
    this.retryAfter =
        retryAfter == null || retryAfter.isNegative() ? DEFAULT_RETRY_AFTER : retryAfter;
  }

  /** How long the caller should wait before retrying. */
  public Duration retryAfter() {
    return retryAfter;
  }
}
