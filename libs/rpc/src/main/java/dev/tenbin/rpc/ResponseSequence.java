package dev.tenbin.rpc;

import io.grpc.stub.ServerCallStreamObserver;

/**
 * Sends a server stream's responses under gRPC flow control: the next response is made only while
 * the client can take it ({@code isReady}), the on-ready handler resumes where sending stopped, and
 * a cancelled call gets nothing more. A slow reader therefore holds the server to the pace it reads
 * at, with no response made ahead and nothing buffered without bound; nothing waits or polls.
 *
 * <p>A response that cannot be made ends the sequence: its source is closed and the exception is
 * thrown out of the on-ready handler, where the {@link ExceptionMappingInterceptor} closes the call
 * with its mapped status.
 */
public final class ResponseSequence<T> {
  /**
   * Where the responses come from, one at a time, all on the call's serialized callbacks.
   *
   * @param <T> the response type
   */
  public interface Source<T> {
    /** Whether more is due: false once the last response was made. */
    boolean hasNext();

    /**
     * Makes the next response; null when this step has nothing to send (the sequence goes on while
     * {@link #hasNext}). An exception ends the sequence.
     */
    T next();

    /** Called once when the sequence ends: completed, failed or cancelled. */
    default void close() {}
  }

  private final ServerCallStreamObserver<T> call;
  private final Source<T> source;
  private boolean ended;

  private ResponseSequence(ServerCallStreamObserver<T> call, Source<T> source) {
    this.call = call;
    this.source = source;
  }

  /**
   * Installs the on-ready and on-cancel handlers of {@code call} that send what {@code source}
   * makes, then complete the call; call it before the service method returns. The first responses
   * go out at the call's first on-ready callback.
   */
  public static <T> void send(ServerCallStreamObserver<T> call, Source<T> source) {
    ResponseSequence<T> sequence = new ResponseSequence<>(call, source);
    call.setOnCancelHandler(sequence::cancelled);
    call.setOnReadyHandler(sequence::sendWhileReady);
  }

  private synchronized void cancelled() {
    end();
  }

  private synchronized void sendWhileReady() {
    if (ended) {
      return;
    }
    try {
      while (!ended && call.isReady() && !call.isCancelled() && source.hasNext()) {
        T response = source.next();
        if (response != null) {
          call.onNext(response);
        }
      }
    } catch (RuntimeException failure) {
      end();
      throw failure;
    }
    if (!ended && !source.hasNext() && !call.isCancelled()) {
      end();
      call.onCompleted();
    }
  }

  private void end() {
    if (!ended) {
      ended = true;
      source.close();
    }
  }
}
