package dev.tenbin.rpc;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a stopping server ends the calls it still has (a rolling update's SIGTERM, a node drain):
 * none is cut off (CANCELLED, which clients do not retry); each one still open is handed back with
 * {@code UNAVAILABLE} and a {@code google.rpc.RetryInfo}, which clients retry, at a point where
 * everything it answered is done and nothing it did not answer was applied.
 *
 * <ul>
 *   <li>From {@link #begin()} on, a new call is refused at once with that status.
 *   <li>A call whose requests stream (client streaming, bidirectional: an ingest, a search stream)
 *       is handed back at its next message boundary: at once when no callback of it runs, else when
 *       the callback in progress returns (an ingest batch being committed is committed and
 *       acknowledged first). Messages that arrive after it are not delivered: the client never had
 *       them acknowledged, and sends them again.
 *   <li>A server-streaming call (a streamed encode) is handed back after its next message: the
 *       client keeps what it received and asks again for the rest.
 *   <li>A unary call runs on; one still running when the server gives up waiting ({@link
 *       #handBackAll()}, half the grace period) is handed back as well, whatever it is doing: its
 *       answer was never sent, and a unary call that changes something is safe to repeat by
 *       contract (a repeated create or ingest is refused or changes nothing).
 * </ul>
 *
 * <p>A method whose call was handed back hears of its end as a cancellation. The interceptor sits
 * innermost, so a hand-back passes through the same status sanitizing and metrics as any close.
 */
final class CallDrain {
  private final Set<Tracked<?, ?>> open = ConcurrentHashMap.newKeySet();
  private final Duration retryAfter;
  private volatile boolean draining;

  CallDrain(Duration retryAfter) {
    this.retryAfter = retryAfter;
  }

  /** Refuses calls once draining; tracks the others until they end. */
  ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        if (draining) {
          StatusRuntimeException refusal = handBackStatus();
          call.close(refusal.getStatus(), refusal.getTrailers());
          return new ServerCall.Listener<>() {};
        }
        Tracked<ReqT, RespT> tracked = new Tracked<>(call);
        open.add(tracked);
        ServerCall.Listener<ReqT> delegate;
        try {
          delegate = next.startCall(tracked, headers);
        } catch (RuntimeException failure) {
          open.remove(tracked);
          throw failure;
        }
        ServerCall.Listener<ReqT> listener = tracked.listening(delegate);
        if (draining) {
          tracked.drain();
        }
        return listener;
      }
    };
  }

  /** Stops taking calls and hands back each open stream at its next boundary. */
  void begin() {
    draining = true;
    for (Tracked<?, ?> call : List.copyOf(open)) {
      call.drain();
    }
  }

  /** Hands back every call still open, whatever it is doing. */
  void handBackAll() {
    for (Tracked<?, ?> call : List.copyOf(open)) {
      call.handBack();
    }
  }

  /** Calls still open. */
  int open() {
    return open.size();
  }

  /** Waits up to {@code timeout} for every call to end; true when none is left. */
  boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!open.isEmpty()) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** UNAVAILABLE with a retry delay: the status of a hand-back and of a refused call. */
  StatusRuntimeException handBackStatus() {
    return StatusMapper.unavailable(
        "the server is shutting down (draining): the call was handed back; nothing it did not"
            + " answer was applied; retry on another replica or once this one has restarted",
        retryAfter);
  }

  /**
   * One open call. Its methods are serialized on this object, whichever thread calls them: the
   * method's own (sending, closing) and the draining one's (handing back).
   */
  private final class Tracked<ReqT, RespT>
      extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {
    private final boolean streamingRequests;
    private final boolean streamingResponses;

    /** Callbacks of the call running now (gRPC runs them one at a time; 0 or 1). */
    private int busy;

    /** The call is to be handed back at its next boundary. */
    private boolean pending;

    /** Closed: by its method, or handed back. */
    private boolean closed;

    /** Handed back: the method hears of the call's end as a cancellation. */
    private volatile boolean handedBack;

    Tracked(ServerCall<ReqT, RespT> call) {
      super(call);
      MethodDescriptor.MethodType type = call.getMethodDescriptor().getType();
      streamingRequests = !type.clientSendsOneMessage();
      streamingResponses = type == MethodDescriptor.MethodType.SERVER_STREAMING;
    }

    /** Asked to hand back: now, or at the call's next boundary. */
    synchronized void drain() {
      if (closed) {
        return;
      }
      if (streamingRequests && busy == 0) {
        handBack();
      } else if (streamingRequests || streamingResponses) {
        pending = true;
      }
    }

    /** Ends the call with the hand-back status (nothing when it is closed already). */
    synchronized void handBack() {
      if (closed) {
        return;
      }
      closed = true;
      handedBack = true;
      StatusRuntimeException status = handBackStatus();
      super.close(status.getStatus(), status.getTrailers());
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!closed) {
        super.sendHeaders(headers);
      }
    }

    @Override
    public synchronized void sendMessage(RespT message) {
      if (closed) {
        return;
      }
      super.sendMessage(message);
      if (pending && streamingResponses) {
        handBack();
      }
    }

    @Override
    public synchronized void close(Status status, Metadata trailers) {
      if (closed) {
        return;
      }
      closed = true;
      super.close(status, trailers);
    }

    @Override
    public synchronized boolean isReady() {
      return !closed && super.isReady();
    }

    @Override
    public synchronized void request(int messages) {
      if (!closed) {
        super.request(messages);
      }
    }

    /** Whether a callback may run; counts it as running. */
    private synchronized boolean enter() {
      if (closed) {
        return false;
      }
      busy++;
      return true;
    }

    /** A callback returned: a pending hand-back of a request stream happens now. */
    private synchronized void exit() {
      busy--;
      if (pending && streamingRequests && busy == 0) {
        handBack();
      }
    }

    ServerCall.Listener<ReqT> listening(ServerCall.Listener<ReqT> delegate) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
        @Override
        public void onMessage(ReqT message) {
          if (enter()) {
            try {
              super.onMessage(message);
            } finally {
              exit();
            }
          }
        }

        @Override
        public void onHalfClose() {
          if (enter()) {
            try {
              super.onHalfClose();
            } finally {
              exit();
            }
          }
        }

        @Override
        public void onReady() {
          if (enter()) {
            try {
              super.onReady();
            } finally {
              exit();
            }
          }
        }

        @Override
        public void onCancel() {
          open.remove(Tracked.this);
          super.onCancel();
        }

        @Override
        public void onComplete() {
          open.remove(Tracked.this);
          if (handedBack) {
            // The method did not end the call: to it, the call was cut off.
            super.onCancel();
          } else {
            super.onComplete();
          }
        }
      };
    }
  }
}
