package dev.tenbin.core;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Guards a native resource (an ONNX Runtime session, a native tokenizer) against being freed while
 * a thread still uses it. Every use holds a {@link Lease}; {@link #close()} refuses new leases
 * ({@link UnavailableException}), waits for the held ones and only then frees the resource, exactly
 * once. When a bounded close gives up waiting, the resource is freed by the thread that returns the
 * last lease — never while one is held.
 *
 * <p>Leases are counted without a lock (one atomic word), so guarding a call that takes a few
 * microseconds costs two atomic operations.
 */
public final class Lifetime {
  private static final Logger log = LoggerFactory.getLogger(Lifetime.class);
  private static final long CLOSING = 1L << 62;

  /** A held use of the resource; closing it returns the lease. */
  @FunctionalInterface
  public interface Lease extends AutoCloseable {
    @Override
    void close();
  }

  private final String name;
  private final Runnable free;
  private final AtomicLong state = new AtomicLong();
  private final AtomicBoolean freeing = new AtomicBoolean();
  private final CountDownLatch freed = new CountDownLatch(1);
  private final Lease lease = this::release;

  /**
   * @param name what the resource is, for messages ("model bge-small-en-v1.5")
   * @param free frees the resource; runs once, when closed and no lease is held
   */
  public Lifetime(String name, Runnable free) {
    this.name = name;
    this.free = free;
  }

  /** A lease on the resource; UNAVAILABLE once closing has begun. */
  public Lease acquire() {
    long state = this.state.incrementAndGet();
    if ((state & CLOSING) != 0) {
      release();
      throw new UnavailableException(
          name + " is being unloaded or the service is shutting down; retry");
    }
    return lease;
  }

  /** Whether closing has begun (long loops holding no lease stop early on it). */
  public boolean isClosing() {
    return (state.get() & CLOSING) != 0;
  }

  /** Whether the resource has been freed. */
  public boolean isFreed() {
    return freed.getCount() == 0;
  }

  /** Leases held now. */
  public long held() {
    return state.get() & ~CLOSING;
  }

  private void release() {
    if (state.decrementAndGet() == CLOSING) {
      freeOnce();
    }
  }

  /** Refuses new leases, waits for the held ones, frees the resource. */
  public void close() {
    beginClosing();
    boolean interrupted = false;
    while (true) {
      try {
        freed.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * As {@link #close()}, waiting at most {@code wait}; returns whether the resource is freed. When
   * not, the thread returning the last lease frees it.
   */
  public boolean close(Duration wait) {
    beginClosing();
    try {
      return freed.await(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return isFreed();
    }
  }

  private void beginClosing() {
    if ((state.getAndUpdate(s -> s | CLOSING) | CLOSING) == CLOSING) {
      freeOnce();
    }
  }

  private void freeOnce() {
    if (!freeing.compareAndSet(false, true)) {
      return;
    }
    try {
      free.run();
    } catch (RuntimeException e) {
      log.warn("freeing {} failed", name, e);
    } finally {
      freed.countDown();
    }
  }

  @Override
  public String toString() {
    return "Lifetime[" + name + ", held " + held() + (isClosing() ? ", closing" : "") + "]";
  }
}
