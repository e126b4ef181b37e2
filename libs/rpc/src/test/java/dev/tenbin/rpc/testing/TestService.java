package dev.tenbin.rpc.testing;

import com.google.protobuf.Empty;
import com.google.protobuf.StringValue;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.OverloadedException;
import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hand-built service for the RPC runtime's tests: {@code Check} answers OK, or fails the way the
 * request value says ({@code bad}, {@code boom}, {@code long:N}, ...), or blocks on {@code block}
 * until {@link #release()}.
 */
public final class TestService implements BindableService {
  public static final String NAME = "tenbin.test.v1.TestService";

  public static final MethodDescriptor<StringValue, Empty> CHECK =
      MethodDescriptor.<StringValue, Empty>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(NAME + "/Check")
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .build();

  /** Client streaming: counts the messages it is sent and answers once the client half-closes. */
  public static final MethodDescriptor<StringValue, Empty> COLLECT =
      MethodDescriptor.<StringValue, Empty>newBuilder()
          .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
          .setFullMethodName(NAME + "/Collect")
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Empty.getDefaultInstance()))
          .build();

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger blocked = new AtomicInteger();
  private final AtomicInteger collected = new AtomicInteger();
  private volatile String lastThread = "";

  /** Calls {@code Check} with {@code value} (10 s deadline) and returns normally when it is OK. */
  public static void check(Channel channel, String value) {
    ClientCalls.blockingUnaryCall(
        channel,
        CHECK,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
        StringValue.of(value));
  }

  /** Lets every blocked call finish. */
  public void release() {
    release.countDown();
  }

  /** Calls inside {@code block} now. */
  public int blocked() {
    return blocked.get();
  }

  /** The thread the last call ran on. */
  public String lastThread() {
    return lastThread;
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(NAME)
        .addMethod(CHECK, ServerCalls.asyncUnaryCall(this::handle))
        .addMethod(COLLECT, ServerCalls.asyncClientStreamingCall(this::collect))
        .build();
  }

  /** Messages {@code Collect} calls were sent, over all calls. */
  public int collected() {
    return collected.get();
  }

  private StreamObserver<StringValue> collect(StreamObserver<Empty> responses) {
    return new StreamObserver<>() {
      @Override
      public void onNext(StringValue value) {
        collected.incrementAndGet();
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        responses.onNext(Empty.getDefaultInstance());
        responses.onCompleted();
      }
    };
  }

  private void handle(StringValue request, StreamObserver<Empty> responses) {
    lastThread = Thread.currentThread().getName();
    String value = request.getValue();
    int length =
        value.contains(":") ? Integer.parseInt(value.substring(value.indexOf(':') + 1)) : 0;
    switch (value.contains(":") ? value.substring(0, value.indexOf(':')) : value) {
      case "bad" -> throw new InvalidInputException("value", "value must not be bad");
      case "boom" -> throw new IllegalStateException("secret detail /etc/shadow");
      case "on-error" -> {
        responses.onError(
            Status.INTERNAL
                .withDescription("java.lang.NullPointerException: secret")
                .asRuntimeException());
        return;
      }
      case "long" ->
          throw new InvalidInputException("name", "no collection '" + "x".repeat(length) + "'");
      case "long-field" -> throw new InvalidInputException("f".repeat(length), "bad field");
      case "hand-long" -> {
        responses.onError(
            Status.NOT_FOUND.withDescription("missing " + "y".repeat(length)).asRuntimeException());
        return;
      }
      case "busy" -> throw new OverloadedException("queue full", Duration.ofMillis(250));
      case "block" -> {
        blocked.incrementAndGet();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          blocked.decrementAndGet();
        }
      }
      default -> {}
    }
    responses.onNext(Empty.getDefaultInstance());
    responses.onCompleted();
  }
}
