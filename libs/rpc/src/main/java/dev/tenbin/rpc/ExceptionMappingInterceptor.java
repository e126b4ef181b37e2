package dev.tenbin.rpc;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * Closes a call with the mapped status when a service method throws, so adapters can let core
 * exceptions propagate instead of translating them in every method; and passes every status a
 * method closes its call with (thrown, or handed to {@code onError} by hand) through {@link
 * StatusMapper#sanitize}: error ids instead of exception text, messages cut to a size that fits. A
 * request that could not be decoded ({@link RequestDecoding}) is refused with INVALID_ARGUMENT
 * before the method sees it, and nothing is logged for it: it is the client's mistake, recorded as
 * INVALID_ARGUMENT in the metrics like any other (the method then hears only that the call ended,
 * as a cancellation, and whatever it does after that leaves the call as it was closed).
 */
public final class ExceptionMappingInterceptor implements ServerInterceptor {
  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    ServerCall<ReqT, RespT> safeCall = new SanitizingCall<>(call);
    ServerCall.Listener<ReqT> delegate;
    try {
      delegate = next.startCall(safeCall, headers);
    } catch (RuntimeException failure) {
      closeWith(safeCall, failure);
      return new ServerCall.Listener<>() {};
    }
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
      /**
       * Set once a request could not be decoded and the call was closed for it: the method hears
       * nothing more of the call but its end ({@code onCancel}), so it neither answers a call that
       * is already closed nor waits for one that will never come.
       */
      private volatile boolean refused;

      @Override
      public void onMessage(ReqT message) {
        if (refused) {
          return;
        }
        if (message == null) {
          // A request protobuf could not decode (RequestDecoding): the client's mistake.
          refused = true;
          RequestDecoding.Failure failure = RequestDecoding.takeFailure();
          closeWith(
              safeCall,
              StatusMapper.withField(
                  com.google.rpc.Code.INVALID_ARGUMENT,
                  failure == null ? "the request could not be decoded" : failure.message(),
                  failure == null ? null : failure.field()));
          return;
        }
        guard(() -> super.onMessage(message));
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          guard(super::onHalfClose);
        }
      }

      @Override
      public void onReady() {
        if (!refused) {
          guard(super::onReady);
        }
      }

      @Override
      public void onComplete() {
        if (refused) {
          // The method never saw the call end well: to it, the call was cut off.
          super.onCancel();
        } else {
          super.onComplete();
        }
      }

      private void guard(Runnable step) {
        try {
          step.run();
        } catch (RuntimeException failure) {
          closeWith(safeCall, failure);
        }
      }
    };
  }

  private static void closeWith(ServerCall<?, ?> call, RuntimeException failure) {
    closeWith(call, StatusMapper.toStatusException(failure));
  }

  private static void closeWith(ServerCall<?, ?> call, StatusRuntimeException status) {
    Metadata trailers = status.getTrailers() == null ? new Metadata() : status.getTrailers();
    try {
      call.close(status.getStatus(), trailers);
    } catch (IllegalStateException alreadyClosed) {
      // The call was closed by the method before it threw; nothing more to tell the client.
    }
  }

  /**
   * A call whose close passes the status through {@link StatusMapper#sanitize}, once: a second
   * close, or a message sent after the close (a method answering a call the interceptor already
   * closed), is dropped, so it neither throws nor changes the status the call was recorded with.
   */
  private static final class SanitizingCall<ReqT, RespT>
      extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {
    private final java.util.concurrent.atomic.AtomicBoolean closed =
        new java.util.concurrent.atomic.AtomicBoolean();

    SanitizingCall(ServerCall<ReqT, RespT> delegate) {
      super(delegate);
    }

    @Override
    public void sendMessage(RespT message) {
      if (!closed.get()) {
        super.sendMessage(message);
      }
    }

    @Override
    public void close(Status status, Metadata trailers) {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      StatusMapper.Outgoing safe =
          StatusMapper.sanitize(status, trailers, getMethodDescriptor().getFullMethodName());
      super.close(safe.status(), safe.trailers());
    }
  }
}
