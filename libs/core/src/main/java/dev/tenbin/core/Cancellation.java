package dev.tenbin.core;

/**
 * What a long-running core loop knows of the call it serves: whether its caller has gone, and how
 * long the call had already waited before the core got it. The gRPC adapters pass the call's
 * ({@code dev.tenbin.rpc.CallArrival#cancellation()}: {@code Context.current()::isCancelled} and
 * the call's arrival); plain Java callers pass {@link #NEVER}.
 */
@FunctionalInterface
public interface Cancellation {
  Cancellation NEVER = () -> false;

  boolean isCancelled();

  /**
   * Nanoseconds the call has waited since it arrived (for a handler thread, behind other calls), as
   * of now; 0 when its arrival is not known. A core that bounds how long a call may wait before its
   * work starts counts this wait too.
   */
  default long waitedNanos() {
    return 0;
  }

  /** Throws {@link CancelledException} when the caller has gone. */
  default void throwIfCancelled() {
    if (isCancelled()) {
      throw new CancelledException("the call was cancelled or its deadline passed");
    }
  }

  /**
   * {@code cancellation}, for a call that arrived at {@code arrivedAtNanos} ({@link
   * System#nanoTime()}).
   */
  static Cancellation arrivedAt(long arrivedAtNanos, Cancellation cancellation) {
    return new Cancellation() {
      @Override
      public boolean isCancelled() {
        return cancellation.isCancelled();
      }

      @Override
      public long waitedNanos() {
        return Math.max(0, System.nanoTime() - arrivedAtNanos);
      }
    };
  }

  /** {@code cancellation} without what it knows of the wait (for work after the call's first). */
  static Cancellation withoutWait(Cancellation cancellation) {
    return cancellation::isCancelled;
  }
}
