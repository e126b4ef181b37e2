package dev.tenbin.testing.rpc;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Sends bytes that are not a valid request (a string that is not UTF-8, a truncated message) to a
 * method of any service, as a hostile or broken client would, and reports the status the service
 * answered, the field it named and any SEVERE record logged meanwhile (grpc-java logs an
 * "application error" there).
 */
public final class MalformedRequests {
  /** The answer to a malformed request. */
  public record Outcome(Status status, String field, List<LogRecord> severeLogRecords) {}

  private MalformedRequests() {}

  /** Sends {@code request} as the only message of a call to {@code fullMethodName}. */
  public static Outcome send(Channel channel, String fullMethodName, byte[] request) {
    return send(channel, fullMethodName, request, MethodDescriptor.MethodType.UNARY);
  }

  /**
   * Sends {@code request} to a method of the given type (a client- or bidi-streaming method gets it
   * as its one message, then the end of the stream).
   */
  public static Outcome send(
      Channel channel, String fullMethodName, byte[] request, MethodDescriptor.MethodType type) {
    MethodDescriptor<byte[], byte[]> method =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(type)
            .setFullMethodName(fullMethodName)
            .setRequestMarshaller(RAW)
            .setResponseMarshaller(RAW)
            .build();
    List<LogRecord> severe = new ArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
              synchronized (severe) {
                severe.add(record);
              }
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger root = Logger.getLogger("");
    root.addHandler(handler);
    try {
      CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
      try {
        if (type == MethodDescriptor.MethodType.UNARY
            || type == MethodDescriptor.MethodType.SERVER_STREAMING) {
          var answers = ClientCalls.blockingServerStreamingCall(channel, method, options, request);
          answers.forEachRemaining(answer -> {});
        } else {
          var done = new java.util.concurrent.CompletableFuture<Void>();
          var requests =
              ClientCalls.asyncBidiStreamingCall(
                  channel.newCall(method, options),
                  new io.grpc.stub.StreamObserver<byte[]>() {
                    @Override
                    public void onNext(byte[] value) {}

                    @Override
                    public void onError(Throwable t) {
                      done.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                      done.complete(null);
                    }
                  });
          requests.onNext(request);
          requests.onCompleted();
          try {
            done.get(30, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof StatusRuntimeException status) {
              throw status;
            }
            throw new IllegalStateException(e.getCause());
          } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(e);
          }
        }
        return new Outcome(Status.OK, null, copy(severe));
      } catch (StatusRuntimeException e) {
        // The server logs on its own threads: give them a moment to do so.
        sleep();
        return new Outcome(e.getStatus(), field(e), copy(severe));
      }
    } finally {
      root.removeHandler(handler);
    }
  }

  private static String field(StatusRuntimeException e) {
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    if (status == null) {
      return null;
    }
    for (Any detail : status.getDetailsList()) {
      if (detail.is(BadRequest.class)) {
        try {
          BadRequest badRequest = detail.unpack(BadRequest.class);
          return badRequest.getFieldViolationsCount() == 0
              ? null
              : badRequest.getFieldViolations(0).getField();
        } catch (com.google.protobuf.InvalidProtocolBufferException invalid) {
          return null;
        }
      }
    }
    return null;
  }

  private static List<LogRecord> copy(List<LogRecord> records) {
    synchronized (records) {
      return List.copyOf(records);
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final MethodDescriptor.Marshaller<byte[]> RAW =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };
}
