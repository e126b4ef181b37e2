package dev.tenbin.testing.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls every method of a gRPC service with fuzzed requests and checks the contract a hostile
 * client may rely on: the answer comes within the deadline (no hang), its status is never INTERNAL
 * or UNKNOWN (a malformed request is the client's fault and says which field), its message carries
 * no Java exception text and fits in HTTP/2 headers (a long field is cut, not echoed). Requests are
 * built from raw bytes ({@code Request.parseFrom}) or field by field ({@link ProtoFuzz#generate});
 * streaming methods get several. The methods come from the service descriptor, so a new RPC is
 * fuzzed without changing the target.
 */
public final class RpcFuzzer {
  /** Statuses a malformed request must never get. */
  private static final Set<Status.Code> FORBIDDEN =
      EnumSet.of(
          Status.Code.INTERNAL,
          Status.Code.UNKNOWN,
          Status.Code.DEADLINE_EXCEEDED,
          Status.Code.UNIMPLEMENTED,
          Status.Code.DATA_LOSS);

  /** Netty's default limit on the headers of one response (grpc-java's maxInboundMetadataSize). */
  private static final int MAX_TRAILER_BYTES = 8192;

  /**
   * A Java exception's class name or a stack frame. No {@code \b}: the JDK's word boundary scans
   * back over combining marks, quadratic on a long run of them (a fuzzer's favourite).
   */
  private static final Pattern EXCEPTION_TEXT =
      Pattern.compile(
          "(?<![\\w.$])(?:java|javax|jdk|sun|com|org|io|dev)\\.[\\w.$]*(?:Exception|Error)(?![\\w$])"
              + "|(?<=\\n\\s{0,8}at )[\\w.$]+(?=\\()");

  private final Channel channel;
  private final List<MethodDescriptor<Message, Message>> methods;
  private final ProtoFuzz generator;
  private final UnaryOperator<String> sanitize;
  private final Duration deadline;

  /**
   * @param sanitize applied to every string of every request before it is sent, to keep the fuzzer
   *     away from what the test cannot allow (e.g. model downloads from the network)
   * @param deadline per call; an answer later than this is reported as a hang
   */
  @SuppressWarnings("unchecked")
  public RpcFuzzer(
      Channel channel,
      ServiceDescriptor service,
      ProtoFuzz generator,
      UnaryOperator<String> sanitize,
      Duration deadline) {
    this.channel = channel;
    List<MethodDescriptor<Message, Message>> all = new ArrayList<>();
    for (MethodDescriptor<?, ?> method : service.getMethods()) {
      all.add((MethodDescriptor<Message, Message>) method);
    }
    all.sort(Comparator.comparing(MethodDescriptor::getFullMethodName));
    this.methods = List.copyOf(all);
    this.generator = generator;
    this.sanitize = sanitize;
    this.deadline = deadline;
  }

  /** What a call sent and how it ended. */
  public record Outcome(String method, int requests, Status.Code code) {}

  /**
   * One call of a method chosen by {@code data} with requests built from it; fails on a contract
   * breach. Returns how it ended, or null when the bytes made no request to send.
   */
  public Outcome call(FuzzedDataProvider data) {
    MethodDescriptor<Message, Message> method = data.pickValue(methods);
    boolean streamingRequests =
        method.getType() == MethodDescriptor.MethodType.CLIENT_STREAMING
            || method.getType() == MethodDescriptor.MethodType.BIDI_STREAMING;
    int count = streamingRequests ? data.consumeInt(0, 4) : 1;
    List<Message> requests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Message request = request(method, data);
      if (request != null) {
        requests.add(request);
      }
    }
    if (!streamingRequests && requests.isEmpty()) {
      return null;
    }
    return call(method, requests);
  }

  private Message request(MethodDescriptor<Message, Message> method, FuzzedDataProvider data) {
    Message prototype =
        ((MethodDescriptor.PrototypeMarshaller<Message>) method.getRequestMarshaller())
            .getMessagePrototype();
    Message request =
        data.consumeBoolean()
            ? ProtoFuzz.parse(prototype, data.consumeBytes(data.consumeInt(0, 4096)))
            : generator.generate(prototype, data);
    return request == null ? null : ProtoFuzz.mapStrings(request, sanitize);
  }

  private Outcome call(MethodDescriptor<Message, Message> method, List<Message> requests) {
    CallOptions options =
        CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    try {
      switch (method.getType()) {
        case UNARY -> ClientCalls.blockingUnaryCall(channel, method, options, requests.getFirst());
        case SERVER_STREAMING -> {
          Iterator<Message> responses =
              ClientCalls.blockingServerStreamingCall(
                  channel, method, options, requests.getFirst());
          while (responses.hasNext()) {
            responses.next();
          }
        }
        default -> {
          Status status = streamed(method, options, requests);
          if (!status.isOk()) {
            throw status.asRuntimeException();
          }
        }
      }
    } catch (StatusRuntimeException failure) {
      check(method, requests, failure.getStatus(), failure.getTrailers());
      return new Outcome(
          method.getFullMethodName(), requests.size(), failure.getStatus().getCode());
    }
    return new Outcome(method.getFullMethodName(), requests.size(), Status.Code.OK);
  }

  private Status streamed(
      MethodDescriptor<Message, Message> method, CallOptions options, List<Message> requests) {
    CompletableFuture<Status> done = new CompletableFuture<>();
    StreamObserver<Message> responses =
        new StreamObserver<>() {
          @Override
          public void onNext(Message value) {}

          @Override
          public void onError(Throwable t) {
            done.complete(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            done.complete(Status.OK);
          }
        };
    ClientCall<Message, Message> call = channel.newCall(method, options);
    StreamObserver<Message> out =
        method.getType() == MethodDescriptor.MethodType.CLIENT_STREAMING
            ? ClientCalls.asyncClientStreamingCall(call, responses)
            : ClientCalls.asyncBidiStreamingCall(call, responses);
    for (Message request : requests) {
      out.onNext(request);
    }
    out.onCompleted();
    try {
      return done.get(deadline.toMillis() + 10_000, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      call.cancel("the fuzzer gave up", null);
      throw finding(
          "hang",
          method.getFullMethodName(),
          method.getFullMethodName() + " did not end within its deadline" + describe(requests));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    }
  }

  private static void check(
      MethodDescriptor<?, ?> method, List<Message> requests, Status status, Metadata trailers) {
    String rpc = method.getFullMethodName();
    String description = status.getDescription() == null ? "" : status.getDescription();
    // The start of a message is where exception text shows; a longer one is refused below anyway.
    Matcher exception =
        EXCEPTION_TEXT.matcher(description.substring(0, Math.min(description.length(), 8192)));
    String thrown = exception.find() ? exception.group() : "";
    if (FORBIDDEN.contains(status.getCode())) {
      throw finding(
          status.getCode() + (thrown.isEmpty() ? "" : "." + thrown),
          rpc,
          rpc + " answered " + status.getCode() + ": " + cut(description) + describe(requests));
    }
    if (!thrown.isEmpty()) {
      throw finding(
          "exception-text." + thrown,
          rpc,
          rpc
              + " answered "
              + status.getCode()
              + " with exception text: "
              + cut(description)
              + describe(requests));
    }
    long size = description.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (trailers != null) {
      for (String key : trailers.keys()) {
        if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
          for (byte[] value :
              trailers.getAll(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER))) {
            size += key.length() + (value.length + 2) / 3 * 4L;
          }
        } else {
          for (String value :
              trailers.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER))) {
            size += key.length() + value.length();
          }
        }
      }
    }
    if (size > MAX_TRAILER_BYTES) {
      throw finding(
          "oversized-status",
          rpc,
          rpc
              + " answered "
              + status.getCode()
              + " with "
              + size
              + " bytes of status and trailers (more than HTTP/2"
              + " headers carry; long fields must be cut): "
              + cut(description)
              + describe(requests));
    }
  }

  /**
   * A contract breach, as an error whose root cause names the kind of breach (e.g. {@code
   * INTERNAL.java.nio.file.InvalidPathException}) and the RPC in its only stack frame: Jazzer tells
   * findings apart by the root cause's stack, so each kind of server failure on each RPC is a
   * finding of its own rather than one more of "the fuzzer's assertion failed".
   */
  private static AssertionError finding(String kind, String rpc, String message) {
    RuntimeException where = new RuntimeException(kind + " from " + rpc);
    where.setStackTrace(
        new StackTraceElement[] {
          new StackTraceElement(
              "server." + kind.replaceAll("[^\\w.$]", "_"),
              rpc.replaceAll("[^\\w.$]", "_"),
              null,
              -1)
        });
    return new AssertionError(message, where);
  }

  private static String describe(List<Message> requests) {
    StringBuilder out = new StringBuilder();
    for (Message request : requests) {
      out.append("\nrequest ")
          .append(request.getDescriptorForType().getName())
          .append(" {")
          .append(cut(TextFormat.printer().escapingNonAscii(true).shortDebugString(request)))
          .append('}');
    }
    return out.toString();
  }

  private static String cut(String text) {
    return text.length() <= 600
        ? text
        : text.substring(0, 600) + "... (" + text.length() + " chars)";
  }
}
