package dev.tenbin.rpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.WireFormat;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Requests that protobuf cannot decode — a string field that is not valid UTF-8, a truncated or
 * malformed message — are the client's mistake, answered INVALID_ARGUMENT naming the field where it
 * can be found ({@code documents[3].text}), and not an "application error" with a stack trace in
 * the server's log: grpc-java decodes a request before any interceptor sees it and treats a
 * decoding failure as the application's.
 *
 * <p>{@link #refusingMalformed} gives each method of a service a request marshaller that decodes
 * from the request's bytes and, when decoding fails, hands the call a null message and keeps why
 * ({@link #takeFailure}); {@link ExceptionMappingInterceptor} closes such a call with that reason.
 * Decoding and delivery happen on the same thread, one message after the other.
 */
public final class RequestDecoding {
  /** Why a request could not be decoded: the field (or null) and what is wrong. */
  public record Failure(String field, String message) {}

  private static final ThreadLocal<Failure> LAST_FAILURE = new ThreadLocal<>();

  private RequestDecoding() {}

  /** {@code service} with every method's requests decoded as above. */
  public static ServerServiceDefinition refusingMalformed(ServerServiceDefinition service) {
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
      methods.add(decoding(method));
    }
    // The same service descriptor (its schema too, which reflection lists) with the new methods.
    io.grpc.ServiceDescriptor.Builder descriptor =
        io.grpc.ServiceDescriptor.newBuilder(service.getServiceDescriptor().getName())
            .setSchemaDescriptor(service.getServiceDescriptor().getSchemaDescriptor());
    methods.forEach(method -> descriptor.addMethod(method.getMethodDescriptor()));
    ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(descriptor.build());
    methods.forEach(builder::addMethod);
    return builder.build();
  }

  /**
   * The reason the last request decoded on this thread was refused, or null; cleared on reading.
   */
  public static Failure takeFailure() {
    Failure failure = LAST_FAILURE.get();
    LAST_FAILURE.remove();
    return failure;
  }

  private static <ReqT, RespT> ServerMethodDefinition<ReqT, RespT> decoding(
      ServerMethodDefinition<ReqT, RespT> method) {
    MethodDescriptor<ReqT, RespT> descriptor = method.getMethodDescriptor();
    MethodDescriptor.Marshaller<ReqT> requests = descriptor.getRequestMarshaller();
    if (!(requests instanceof MethodDescriptor.PrototypeMarshaller<ReqT> prototyped)
        || !(prototyped.getMessagePrototype() instanceof Message prototype)) {
      return method;
    }
    return ServerMethodDefinition.create(
        descriptor.toBuilder()
            .setRequestMarshaller(new Decoding<>(prototyped, prototype.getDescriptorForType()))
            .build(),
        method.getServerCallHandler());
  }

  /** Decodes from the request's bytes; on failure, a null message and the reason kept. */
  private record Decoding<T>(MethodDescriptor.PrototypeMarshaller<T> delegate, Descriptor type)
      implements MethodDescriptor.PrototypeMarshaller<T> {
    @Override
    public InputStream stream(T value) {
      return delegate.stream(value);
    }

    @Override
    public T parse(InputStream stream) {
      byte[] bytes;
      try {
        bytes = stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try {
        T message = delegate.parse(new ByteArrayInputStream(bytes));
        LAST_FAILURE.remove();
        return message;
      } catch (RuntimeException e) {
        LAST_FAILURE.set(explain(type, bytes));
        return null;
      }
    }

    @Override
    public T getMessagePrototype() {
      return delegate.getMessagePrototype();
    }

    @Override
    public Class<T> getMessageClass() {
      return delegate.getMessageClass();
    }
  }

  /**
   * Why {@code bytes} are not a valid {@code type} message: the first string field that is not
   * valid UTF-8, with its path; else the message as a whole.
   */
  static Failure explain(Descriptor type, byte[] bytes) {
    try {
      Failure found = firstInvalidString(type, bytes, "", 0);
      if (found != null) {
        return found;
      }
    } catch (IOException | RuntimeException malformed) {
      // Not even the wire format holds: the message as a whole is refused below.
    }
    return new Failure(
        null,
        "the request is not a valid "
            + type.getFullName()
            + " message (truncated, or not protobuf's wire format)");
  }

  private static Failure firstInvalidString(Descriptor type, byte[] bytes, String prefix, int depth)
      throws IOException {
    if (depth > 32) {
      return null;
    }
    CodedInputStream in = CodedInputStream.newInstance(bytes);
    Map<Integer, Integer> seen = new HashMap<>();
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      int number = WireFormat.getTagFieldNumber(tag);
      FieldDescriptor field = type.findFieldByNumber(number);
      if (field == null || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        in.skipField(tag);
        continue;
      }
      int index = seen.merge(number, 1, Integer::sum) - 1;
      String path = prefix + field.getName() + (field.isRepeated() ? "[" + index + "]" : "");
      if (field.getJavaType() == FieldDescriptor.JavaType.STRING) {
        byte[] value = in.readByteArray();
        if (!ByteString.copyFrom(value).isValidUtf8()) {
          return new Failure(path, path + " is not valid UTF-8");
        }
      } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        Failure inner =
            firstInvalidString(field.getMessageType(), in.readByteArray(), path + ".", depth + 1);
        if (inner != null) {
          return inner;
        }
      } else {
        in.skipField(tag);
      }
    }
    return null;
  }
}
