package dev.tenbin.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.AbstractStub;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * How a client calls a service: every call with a deadline, and a call that fails with UNAVAILABLE
 * (a replica restarting, a connection not yet up) tried again with backoff, up to {@code
 * maxAttempts} times in all. Only calls that may run twice without harm are retried: reads, and
 * writes whose second run is refused or changes nothing.
 *
 * @param deadline how long one attempt may take
 * @param maxAttempts attempts in all, at least 1
 */
public record CallPolicy(Duration deadline, int maxAttempts) {
  /** The first wait before a retry; each further wait doubles. */
  static final long FIRST_BACKOFF_MILLIS = 200;

  public CallPolicy {
    if (deadline == null || deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("a call deadline must be positive, got " + deadline);
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("at least one attempt, got " + maxAttempts);
    }
  }

  /** The same policy with another per-call deadline. */
  public CallPolicy withDeadline(Duration value) {
    return new CallPolicy(value, maxAttempts);
  }

  /** {@code stub} with this policy's deadline, counted from now. */
  public <S extends AbstractStub<S>> S deadlined(S stub) {
    return stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Runs {@code call}, again after UNAVAILABLE while attempts are left. */
  public <T> T retrying(Supplier<T> call) {
    long backoffMillis = FIRST_BACKOFF_MILLIS;
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt >= maxAttempts) {
          throw e;
        }
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        backoffMillis *= 2;
      }
    }
  }
}
