package dev.tenbin.rpc;

import dev.tenbin.core.Cancellation;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;

/**
 * When each call arrived: recorded as the server creates the call's stream, before the call waits
 * for a handler thread, and kept in the call's {@link Context}. A service that bounds how long a
 * call may wait before its work begins (the encoder's {@code --max-queue-wait-seconds}) counts from
 * here, so the wait for a thread is part of the bound ({@link #cancellation()}). Every server
 * {@link GrpcServerHost} starts, network or in-process, records it.
 */
public final class CallArrival {
  private static final Context.Key<Long> ARRIVED = Context.key("tenbin-arrived-nanos");

  private CallArrival() {}

  /** Stamps each stream with {@link System#nanoTime()} when it is created. */
  static ServerStreamTracer.Factory tracerFactory() {
    return new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        long arrived = System.nanoTime();
        return new ServerStreamTracer() {
          @Override
          public Context filterContext(Context context) {
            return context.withValue(ARRIVED, arrived);
          }
        };
      }
    };
  }

  /**
   * The current call's {@link Cancellation}: cancelled with its context, and knowing how long the
   * call has waited since it arrived ({@link Cancellation#waitedNanos()}; 0 outside a call served
   * by a {@link GrpcServerHost}).
   */
  public static Cancellation cancellation() {
    Context context = Context.current();
    Long arrived = ARRIVED.get(context);
    Cancellation cancelled = context::isCancelled;
    return arrived == null ? cancelled : Cancellation.arrivedAt(arrived, cancelled);
  }
}
