package dev.tenbin.client;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Any generated service, faked: each unary method fails its first {@code failures} calls with
 * {@code failure}, then answers the response type's default message; a {@code silent} one never
 * answers. Streaming methods always fail with {@code failure}. Calls are counted per method.
 */
public final class FakeService implements BindableService {
  private final ServiceDescriptor descriptor;
  private final int failures;
  private final Status failure;
  private final boolean silent;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  private FakeService(ServiceDescriptor descriptor, int failures, Status failure, boolean silent) {
    this.descriptor = descriptor;
    this.failures = failures;
    this.failure = failure;
    this.silent = silent;
  }

  /** Every method fails its first {@code failures} calls with {@code failure}, then answers. */
  public static FakeService failingFirst(
      ServiceDescriptor descriptor, int failures, Status failure) {
    return new FakeService(descriptor, failures, failure, false);
  }

  /** Every method takes its call and never answers. */
  public static FakeService silent(ServiceDescriptor descriptor) {
    return new FakeService(descriptor, 0, Status.OK, true);
  }

  /** Calls of the method named {@code name} (as in the .proto, e.g. "Search") so far. */
  public int calls(String name) {
    AtomicInteger count = calls.get(name);
    return count == null ? 0 : count.get();
  }

  @Override
  public ServerServiceDefinition bindService() {
    ServerServiceDefinition.Builder service = ServerServiceDefinition.builder(descriptor);
    for (MethodDescriptor<?, ?> method : descriptor.getMethods()) {
      add(service, method);
    }
    return service.build();
  }

  private <Q, R> void add(ServerServiceDefinition.Builder service, MethodDescriptor<Q, R> method) {
    if (!method.getType().clientSendsOneMessage()) {
      service.addMethod(
          method,
          ServerCalls.asyncBidiStreamingCall(
              (io.grpc.stub.StreamObserver<R> responses) -> {
                calls
                    .computeIfAbsent(method.getBareMethodName(), name -> new AtomicInteger())
                    .incrementAndGet();
                if (!silent) {
                  responses.onError(failure.asRuntimeException());
                }
                return new io.grpc.stub.StreamObserver<Q>() {
                  @Override
                  public void onNext(Q request) {}

                  @Override
                  public void onError(Throwable t) {}

                  @Override
                  public void onCompleted() {}
                };
              }));
      return;
    }
    service.addMethod(
        method,
        ServerCalls.asyncUnaryCall(
            (Q request, io.grpc.stub.StreamObserver<R> responses) -> {
              int call =
                  calls
                      .computeIfAbsent(method.getBareMethodName(), name -> new AtomicInteger())
                      .getAndIncrement();
              if (silent) {
                return;
              }
              if (call < failures || method.getType() != MethodDescriptor.MethodType.UNARY) {
                responses.onError(failure.asRuntimeException());
                return;
              }
              @SuppressWarnings("unchecked")
              R answer =
                  ((MethodDescriptor.PrototypeMarshaller<R>) method.getResponseMarshaller())
                      .getMessagePrototype();
              responses.onNext(answer);
              responses.onCompleted();
            }));
  }
}
