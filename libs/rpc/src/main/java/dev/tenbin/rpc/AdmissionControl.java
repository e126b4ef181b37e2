package dev.tenbin.rpc;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where and whether a call runs: at most {@code maxConcurrentCalls} calls are admitted at a time,
 * and admitted calls run on a fixed pool of named handler threads instead of gRPC's unbounded
 * cached pool.
 *
 * <p>The decision is taken when the stream arrives, on the transport thread (a {@link
 * ServerStreamTracer} takes a permit and records the outcome in the call's {@link Context}; the
 * permit comes back when the stream closes, however it ends). Health checks, refusals and the
 * interceptors of refused calls run on a small separate pool, so a refusal ({@code
 * RESOURCE_EXHAUSTED} with {@code google.rpc.RetryInfo}) leaves within milliseconds even when every
 * handler thread is busy, and health checks answer under any load. Health checks are never counted.
 *
 * <p>Thread hops per call: gRPC's method lookup (a map lookup, the call object and the choice of
 * executor below; no I/O, no lock held for long) runs on the transport thread the stream arrived on
 * ({@link #lookupExecutor()}), so an admitted call goes from the Netty event loop straight to a
 * handler thread instead of through the separate pool first. The handlers themselves never run on
 * the event loop, not even short ones such as a BM25 search: a search is CPU work of no fixed
 * length (a million-vector scan, a 1,000-hit collection), and while a handler held an event loop
 * that loop could not read the cancellations, deadlines (its timer fires on the loop), health
 * checks or refusals of the other calls it carries.
 */
final class AdmissionControl implements AutoCloseable {
  private static final Context.Key<Boolean> ADMITTED = Context.key("tenbin-admitted");
  private static final String HEALTH_PREFIX = "grpc.health.v1.Health/";

  private final int limit;
  private final ServingLimits limits;
  private final Semaphore permits;
  private final HandlerPool handlers;
  private final ThreadPoolExecutor admission;
  private final Counter refused;

  AdmissionControl(ServingLimits limits, MeterRegistry registry) {
    this.limits = limits;
    this.limit = limits.maxConcurrentCalls();
    this.permits = new Semaphore(limit);
    this.handlers = new HandlerPool(limits.handlerThreads(), "grpc-handler-");
    this.admission =
        new ThreadPoolExecutor(
            2,
            2,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            HandlerPool.named("grpc-admission-"));
    Gauge.builder("tenbin.rpc.calls.active", this, AdmissionControl::active)
        .description("Calls admitted and not yet closed")
        .register(registry);
    Gauge.builder("tenbin.rpc.calls.limit", () -> limit)
        .description("Calls admitted at once at most (--max-concurrent-calls)")
        .register(registry);
    Gauge.builder("tenbin.rpc.handler.queue", handlers, HandlerPool::queued)
        .description("Admitted calls waiting for a handler thread")
        .register(registry);
    this.refused =
        Counter.builder("tenbin.rpc.calls.refused")
            .description("Calls refused with RESOURCE_EXHAUSTED by the admission limit")
            .register(registry);
  }

  /**
   * The executor gRPC runs method lookup on: the transport thread itself. Lookup only finds the
   * method and asks {@link #executorSupplier()} where the call goes; everything after it (the
   * interceptors, the handler) runs on the executor chosen there, never on this one. gRPC also
   * cancels a call's {@link Context} here when its stream fails; Tenbin registers no cancellation
   * listener that does work on the thread that cancels (handlers poll {@code isCancelled()}).
   */
  Executor lookupExecutor() {
    return Runnable::run;
  }

  /**
   * Admitted calls to the handler pool; refused calls and health checks to the admission pool. It
   * never answers null, so nothing but method lookup runs on {@link #lookupExecutor()}.
   */
  ServerCallExecutorSupplier executorSupplier() {
    return new ServerCallExecutorSupplier() {
      @Override
      public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata headers) {
        return Boolean.TRUE.equals(ADMITTED.get()) ? handlers : admission;
      }
    };
  }

  /** Tasks the admission pool has run (health checks, refusals), for tests. */
  long admissionTasksRun() {
    return admission.getCompletedTaskCount();
  }

  /** Takes a permit per arriving stream (health excepted) and gives it back when it closes. */
  ServerStreamTracer.Factory tracerFactory() {
    return new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        if (fullMethodName.startsWith(HEALTH_PREFIX)) {
          return new ServerStreamTracer() {};
        }
        boolean admitted = permits.tryAcquire();
        AtomicBoolean released = new AtomicBoolean(!admitted);
        return new ServerStreamTracer() {
          @Override
          public Context filterContext(Context context) {
            return context.withValue(ADMITTED, admitted);
          }

          @Override
          public void streamClosed(Status status) {
            if (released.compareAndSet(false, true)) {
              permits.release();
            }
          }
        };
      }
    };
  }

  /** Closes calls that were not admitted, at once, with RESOURCE_EXHAUSTED and RetryInfo. */
  ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
          ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
        if (!Boolean.FALSE.equals(ADMITTED.get())) {
          return next.startCall(call, headers);
        }
        refused.increment();
        StatusRuntimeException busy = StatusMapper.overloaded(busyMessage(), limits.retryAfter());
        call.close(busy.getStatus(), busy.getTrailers());
        return new ServerCall.Listener<>() {};
      }
    };
  }

  /**
   * Admits a call that arrived by another transport (the {@link HttpEndpoint}) against the same
   * limit; false (counted as refused) when the limit is reached. An admitted call must be {@link
   * #release}d once, when it ends.
   */
  boolean tryAdmit() {
    if (permits.tryAcquire()) {
      return true;
    }
    refused.increment();
    return false;
  }

  /** Gives back the permit of a call admitted by {@link #tryAdmit}. */
  void release() {
    permits.release();
  }

  /** The handler pool admitted calls run on. */
  Executor handlers() {
    return handlers;
  }

  /** The retry delay sent with a refusal. */
  java.time.Duration retryAfter() {
    return limits.retryAfter();
  }

  /** What a refused call is told. */
  String busyMessage() {
    return "server busy: "
        + limit
        + " concurrent calls at most (--max-concurrent-calls); retry after "
        + limits.retryAfter().toMillis()
        + " ms";
  }

  /** Calls admitted and not yet closed. */
  int active() {
    return limit - permits.availablePermits();
  }

  /** Stops the pools (after the server has terminated), waiting a little for running handlers. */
  @Override
  public void close() {
    admission.shutdown();
    handlers.close();
    admission.shutdownNow();
  }
}
