package dev.tenbin.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.rpc.StatusMapper;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CallPolicy}: only UNAVAILABLE (but for a refused server certificate) and
 * RESOURCE_EXHAUSTED with a {@code RetryInfo} are tried again, at most {@code maxAttempts} times in
 * all, after a doubling backoff or the delay a {@code RetryInfo} asks for, whichever is longer.
 */
class CallPolicyTest {
  private static final CallPolicy THREE = new CallPolicy(Duration.ofSeconds(5), 3);

  @Test
  void aDeadlineMustBePositiveAndOneAttemptIsTheLeast() {
    assertThatThrownBy(() -> new CallPolicy(Duration.ZERO, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CallPolicy(Duration.ofSeconds(-1), 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CallPolicy(null, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CallPolicy(Duration.ofSeconds(1), 0))
        .isInstanceOf(IllegalArgumentException.class);
    CallPolicy policy = new CallPolicy(Duration.ofSeconds(1), 1).withDeadline(Duration.ofMillis(5));
    assertThat(policy).isEqualTo(new CallPolicy(Duration.ofMillis(5), 1));
  }

  @Test
  void unavailableIsTriedAgainUntilItSucceeds() {
    AtomicInteger calls = new AtomicInteger();
    long start = System.nanoTime();
    String result =
        THREE.retrying(
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw Status.UNAVAILABLE.withDescription("restarting").asRuntimeException();
              }
              return "answer";
            });
    long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
    assertThat(result).isEqualTo("answer");
    assertThat(calls).hasValue(3);
    assertThat(millis)
        .as("backoff 200 ms, then 400 ms")
        .isGreaterThanOrEqualTo(CallPolicy.FIRST_BACKOFF_MILLIS * 3);
  }

  @Test
  void aResumedStreamGoesOnWhileEachAttemptMakesProgressAndStopsAfterMaxAttemptsWithout() {
    // Seven hand-backs, each after one more answer: more than three attempts in all, none in vain.
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    String result =
        THREE.resuming(
            () -> {
              calls.incrementAndGet();
              if (answered.incrementAndGet() < 8) {
                throw Status.UNAVAILABLE.withDescription("handed back").asRuntimeException();
              }
              return "all answered";
            },
            answered::get);
    assertThat(result).isEqualTo("all answered");
    assertThat(calls).hasValue(8);

    // Progress once, then none: three attempts in a row without progress end it.
    AtomicInteger stalled = new AtomicInteger();
    AtomicInteger progress = new AtomicInteger();
    assertThatThrownBy(
            () ->
                THREE.resuming(
                    () -> {
                      if (stalled.incrementAndGet() == 1) {
                        progress.incrementAndGet();
                      }
                      throw Status.UNAVAILABLE.withDescription("stalled").asRuntimeException();
                    },
                    progress::get))
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(stalled).hasValue(1 + 3);
    // Without progress resuming is retrying: three attempts in all.
    AtomicInteger none = new AtomicInteger();
    assertThatThrownBy(
            () ->
                THREE.resuming(
                    () -> {
                      none.incrementAndGet();
                      throw Status.UNAVAILABLE.asRuntimeException();
                    },
                    () -> 0))
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(none).hasValue(3);
  }

  @Test
  void unavailableOnEveryAttemptFailsAfterMaxAttemptsWithTheLastStatus() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                THREE.retrying(
                    () -> {
                      throw Status.UNAVAILABLE
                          .withDescription("attempt " + calls.incrementAndGet())
                          .asRuntimeException();
                    }))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).isEqualTo("attempt 3");
            });
    assertThat(calls).hasValue(3);
  }

  @Test
  void oneAttemptIsNeverRetried() {
    AtomicInteger calls = new AtomicInteger();
    CallPolicy once = new CallPolicy(Duration.ofSeconds(1), 1);
    assertThatThrownBy(
            () ->
                once.retrying(
                    () -> {
                      calls.incrementAndGet();
                      throw Status.UNAVAILABLE.asRuntimeException();
                    }))
        .isInstanceOf(StatusRuntimeException.class);
    assertThat(calls).hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(
      value = Status.Code.class,
      names = {
        "INVALID_ARGUMENT",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "FAILED_PRECONDITION",
        "RESOURCE_EXHAUSTED",
        "DEADLINE_EXCEEDED",
        "CANCELLED",
        "INTERNAL",
        "UNKNOWN",
        "UNAUTHENTICATED",
        "PERMISSION_DENIED"
      })
  void anyOtherCodeFailsAtOnce(Status.Code code) {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                THREE.retrying(
                    () -> {
                      calls.incrementAndGet();
                      throw code.toStatus().asRuntimeException();
                    }))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
    assertThat(calls).hasValue(1);
  }

  @Test
  void anOverloadedRefusalWithRetryInfoIsTriedAgainAfterItsDelay() {
    AtomicInteger calls = new AtomicInteger();
    long start = System.nanoTime();
    int answer =
        THREE.retrying(
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw StatusMapper.overloaded("busy", Duration.ofMillis(400));
              }
              return calls.get();
            });
    assertThat(answer).isEqualTo(2);
    assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis())
        .as("RetryInfo asked for 400 ms")
        .isGreaterThanOrEqualTo(400L);
  }

  @Test
  void anOverloadedRefusalOnEveryAttemptFailsAfterMaxAttempts() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                THREE.retrying(
                    () -> {
                      calls.incrementAndGet();
                      throw StatusMapper.overloaded("busy", Duration.ofMillis(10));
                    }))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    assertThat(calls).hasValue(3);
  }

  @Test
  void resourceExhaustedWithoutRetryInfoIsFinal() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                THREE.retrying(
                    () -> {
                      calls.incrementAndGet();
                      throw Status.RESOURCE_EXHAUSTED
                          .withDescription("no space left on device")
                          .asRuntimeException();
                    }))
        .hasMessageContaining("no space left on device");
    assertThat(calls).hasValue(1);
  }

  @Test
  void anUntrustedServerCertificateFailsAtOnceSayingSo() {
    AtomicInteger calls = new AtomicInteger();
    Throwable handshake =
        new javax.net.ssl.SSLHandshakeException("PKIX path building failed")
            .initCause(
                new java.security.cert.CertificateException(
                    "unable to find valid certification path to requested target"));
    assertThatThrownBy(
            () ->
                THREE.retrying(
                    () -> {
                      calls.incrementAndGet();
                      throw Status.UNAVAILABLE
                          .withDescription("io exception")
                          .withCause(handshake)
                          .asRuntimeException();
                    }))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription())
                  .contains("certificate is not trusted")
                  .contains("unable to find valid certification path");
              assertThat(e.getCause()).isSameAs(handshake);
            });
    assertThat(calls).hasValue(1);
  }

  @Test
  void aConnectionResetWithoutACertificateErrorIsStillTriedAgain() {
    AtomicInteger calls = new AtomicInteger();
    int answer =
        THREE.retrying(
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw Status.UNAVAILABLE
                    .withCause(new java.io.IOException("Connection reset by peer"))
                    .asRuntimeException();
              }
              return calls.get();
            });
    assertThat(answer).isEqualTo(2);
  }

  @Test
  void theWaitIsAtLeastTheDelayARetryInfoAsksFor() {
    AtomicInteger calls = new AtomicInteger();
    long start = System.nanoTime();
    THREE.retrying(
        () -> {
          if (calls.incrementAndGet() == 1) {
            throw StatusMapper.unavailable("stopping", Duration.ofMillis(900));
          }
          return calls.get();
        });
    long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
    assertThat(calls).hasValue(2);
    assertThat(millis)
        .as("RetryInfo asked for 900 ms, the backoff is 200 ms")
        .isBetween(900L, 5_000L);
  }

  @Test
  void aRetryInfoShorterThanTheBackoffDoesNotShortenIt() {
    AtomicInteger calls = new AtomicInteger();
    long start = System.nanoTime();
    THREE.retrying(
        () -> {
          if (calls.incrementAndGet() == 1) {
            throw StatusMapper.unavailable("stopping", Duration.ofMillis(1));
          }
          return calls.get();
        });
    assertThat(Duration.ofNanos(System.nanoTime() - start).toMillis())
        .isGreaterThanOrEqualTo(CallPolicy.FIRST_BACKOFF_MILLIS);
  }

  @Test
  void anInterruptedWaitEndsWithTheStatusAndKeepsTheInterrupt() throws InterruptedException {
    AtomicInteger calls = new AtomicInteger();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicReference<Boolean> interrupted = new AtomicReference<>();
    Thread caller =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    new CallPolicy(Duration.ofSeconds(1), 5)
                        .retrying(
                            () -> {
                              calls.incrementAndGet();
                              throw StatusMapper.unavailable("stopping", Duration.ofSeconds(20));
                            });
                  } catch (RuntimeException e) {
                    thrown.set(e);
                  }
                  interrupted.set(Thread.currentThread().isInterrupted());
                });
    while (calls.get() == 0) {
      Thread.sleep(1);
    }
    caller.interrupt();
    caller.join(5_000);
    assertThat(caller.isAlive()).as("the 20 s wait was cut short").isFalse();
    assertThat(calls).hasValue(1);
    assertThat(thrown.get())
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(interrupted.get()).isTrue();
  }
}
