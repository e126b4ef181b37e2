package dev.tenbin.eval.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import java.util.function.Predicate;

/**
 * Sends a series of states (a job's progress) to a server stream under gRPC flow control: a value
 * goes out only while the reader can take it ({@code isReady}), and the on-ready handler sends the
 * newest one held back. A slow reader therefore gets fewer, newer states, never a backlog the
 * server buffers without bound, and always the last one, after which the stream completes. Nothing
 * waits or polls: values arrive by {@link #offer}, readiness by the on-ready callback.
 *
 * @param <T> the message type
 */
final class LatestValueStream<T> {
  private final ServerCallStreamObserver<T> call;
  private final Predicate<T> isLast;
  private T pending;
  private boolean ended;
  private Runnable onEnd = () -> {};

  /** Installs the on-ready and on-cancel handlers; call it before the service method returns. */
  LatestValueStream(ServerCallStreamObserver<T> call, Predicate<T> isLast) {
    this.call = call;
    this.isLast = isLast;
    call.setOnReadyHandler(this::drain);
    call.setOnCancelHandler(this::cancelled);
  }

  /**
   * Runs {@code action} once the last state was sent or the call was cancelled (now, if it already
   * was).
   */
  synchronized void whenEnded(Runnable action) {
    if (ended) {
      action.run();
    } else {
      onEnd = action;
    }
  }

  /**
   * Holds {@code value} as the newest state (replacing one not sent yet) and sends it if the reader
   * can take it.
   */
  synchronized void offer(T value) {
    if (ended) {
      return;
    }
    pending = value;
    drain();
  }

  private synchronized void cancelled() {
    if (!ended) {
      end();
    }
  }

  private synchronized void drain() {
    if (ended || pending == null) {
      return;
    }
    if (call.isCancelled()) {
      end();
      return;
    }
    if (!call.isReady()) {
      return; // the on-ready handler calls again once the reader asks for more
    }
    T value = pending;
    pending = null;
    call.onNext(value);
    if (isLast.test(value)) {
      call.onCompleted();
      end();
    }
  }

  private void end() {
    ended = true;
    pending = null;
    Runnable action = onEnd;
    onEnd = () -> {};
    action.run();
  }
}
