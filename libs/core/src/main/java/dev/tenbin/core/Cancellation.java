package dev.tenbin.core;

/**
 * Lets a long-running core loop notice that its caller has gone. The gRPC adapters pass {@code
 * Context.current()::isCancelled}; plain Java callers pass {@link #NEVER}.
 */
@FunctionalInterface
public interface Cancellation {
  Cancellation NEVER = () -> false;

  boolean isCancelled();

  /** Throws {@link CancelledException} when the caller has gone. */
  default void throwIfCancelled() {
    if (isCancelled()) {
      throw new CancelledException("the call was cancelled or its deadline passed");
    }
  }
}
