package dev.tenbin.rpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;

/**
 * Closes a call with the mapped status when a service method throws, so adapters can let core
 * exceptions propagate instead of translating them in every method.
 */
public final class ExceptionMappingInterceptor implements ServerInterceptor {
  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    ServerCall.Listener<ReqT> delegate = next.startCall(call, headers);
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
      @Override
      public void onMessage(ReqT message) {
        guard(() -> super.onMessage(message));
      }

      @Override
      public void onHalfClose() {
        guard(super::onHalfClose);
      }

      @Override
      public void onReady() {
        guard(super::onReady);
      }

      private void guard(Runnable step) {
        try {
          step.run();
        } catch (RuntimeException failure) {
          StatusRuntimeException status = StatusMapper.toStatusException(failure);
          Metadata trailers = status.getTrailers() == null ? new Metadata() : status.getTrailers();
          try {
            call.close(status.getStatus(), trailers);
          } catch (IllegalStateException alreadyClosed) {
            // The call was closed by the method before it threw; nothing more to tell the client.
          }
        }
      }
    };
  }
}
