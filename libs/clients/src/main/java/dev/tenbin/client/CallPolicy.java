package dev.tenbin.client;

import dev.tenbin.rpc.StatusMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.AbstractStub;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * How a client calls a service: every call with a deadline, and a call that fails with UNAVAILABLE
 * (a replica restarting, a connection not yet up, a server that is stopping and handed the call
 * back), or with RESOURCE_EXHAUSTED carrying a {@code google.rpc.RetryInfo} (a server overloaded
 * for now), tried again with backoff, up to {@code maxAttempts} times in all. A TLS handshake that
 * refused the server's certificate fails at once: no retry can change the certificate. Only calls
 * that may run twice without harm are retried: reads, and writes whose second run is refused or
 * changes nothing.
 *
 * <p>The contract of UNAVAILABLE between Tenbin's servers and clients: the call, or the part of a
 * stream the server did not answer, was not applied, and may be sent again, to another replica or
 * to this one once it is back. A stopping server hands back its open calls this way (never
 * CANCELLED, which is the caller's own decision and is not retried), with a {@code
 * google.rpc.RetryInfo}; the wait before the next attempt is then at least its delay. Streams are
 * resumed by their callers from what was answered: an ingest from its first unacknowledged batch, a
 * streamed encode from its next text ({@code EncoderClient} does so itself).
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

  /** The longest wait a server's {@code RetryInfo} may ask for between two attempts. */
  static final long MAX_RETRY_DELAY_MILLIS = 30_000;

  /**
   * Runs {@code call}, again after a failure that may succeed when sent again ({@link #retryable})
   * while attempts are left, waiting the backoff or the delay the status's {@code RetryInfo} asks
   * for (at most {@value #MAX_RETRY_DELAY_MILLIS} ms), whichever is longer.
   */
  public <T> T retrying(Supplier<T> call) {
    return resuming(call, () -> 0);
  }

  /**
   * As {@link #retrying}, for a stream its caller resumes from what was answered: {@code progress}
   * counts what has been answered so far (texts encoded, batches acknowledged), and an attempt that
   * moved it on starts the count of attempts and the backoff afresh. A long stream handed back many
   * times (a rolling update of several replicas) goes on as long as each attempt makes progress;
   * {@code maxAttempts} attempts in a row without any fail it.
   */
  public <T> T resuming(Supplier<T> call, LongSupplier progress) {
    long backoffMillis = FIRST_BACKOFF_MILLIS;
    long answered = progress.getAsLong();
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (StatusRuntimeException e) {
        long now = progress.getAsLong();
        if (now > answered) {
          answered = now;
          // The attempt that made progress does not count against the ones after it.
          attempt = 0;
          backoffMillis = FIRST_BACKOFF_MILLIS;
        }
        if (untrustedCertificate(e)) {
          throw refusedCertificate(e);
        }
        if (!retryable(e) || attempt >= maxAttempts) {
          throw e;
        }
        long askedMillis =
            StatusMapper.retryDelay(e)
                .map(delay -> Math.min(delay.toMillis(), MAX_RETRY_DELAY_MILLIS))
                .orElse(0L);
        try {
          Thread.sleep(Math.max(backoffMillis, askedMillis));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        backoffMillis *= 2;
      }
    }
  }

  /**
   * Whether {@code failure} may succeed when sent again: UNAVAILABLE (the call was not applied),
   * and RESOURCE_EXHAUSTED that carries a {@code RetryInfo} (a server overloaded or draining for
   * now). RESOURCE_EXHAUSTED without one (a full disk, a message too large) is final.
   */
  static boolean retryable(StatusRuntimeException failure) {
    return switch (failure.getStatus().getCode()) {
      case UNAVAILABLE -> true;
      case RESOURCE_EXHAUSTED -> StatusMapper.retryDelay(failure).isPresent();
      default -> false;
    };
  }

  /**
   * Whether the TLS handshake refused the server's certificate (not signed by a trusted CA, or not
   * naming the host): gRPC reports UNAVAILABLE, but no retry can succeed.
   */
  static boolean untrustedCertificate(StatusRuntimeException failure) {
    if (failure.getStatus().getCode() != Status.Code.UNAVAILABLE) {
      return false;
    }
    for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof java.security.cert.CertificateException
          || cause instanceof java.security.cert.CertPathValidatorException
          || cause instanceof java.security.cert.CertPathBuilderException
          || cause instanceof javax.net.ssl.SSLPeerUnverifiedException) {
        return true;
      }
      if (cause instanceof javax.net.ssl.SSLHandshakeException handshake
          && handshake.getMessage() != null
          && (handshake.getMessage().contains("certificate")
              || handshake.getMessage().contains("PKIX"))) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }

  private static StatusRuntimeException refusedCertificate(StatusRuntimeException failure) {
    Throwable root = failure.getCause();
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return Status.UNAVAILABLE
        .withDescription(
            "TLS handshake failed: the server's certificate is not trusted ("
                + root.getMessage()
                + "); it must be signed by the CA the client trusts (--service-tls-ca) and name"
                + " the host it is reached by (or the client's TLS server name); not retried")
        .withCause(failure.getCause())
        .asRuntimeException(failure.getTrailers());
  }
}
