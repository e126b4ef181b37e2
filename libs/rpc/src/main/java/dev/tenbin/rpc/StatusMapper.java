package dev.tenbin.rpc;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import com.google.rpc.RequestInfo;
import com.google.rpc.RetryInfo;
import dev.tenbin.core.AlreadyExistsException;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.OverloadedException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.SafeText;
import dev.tenbin.core.StorageFullException;
import dev.tenbin.core.TenbinException;
import dev.tenbin.core.UnavailableException;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where failures become gRPC statuses, and where every outgoing status is made safe.
 *
 * <ul>
 *   <li>Typed core exceptions map to their code; field-specific ones carry a {@code
 *       google.rpc.BadRequest} field violation, so clients know which field was wrong.
 *   <li>{@link OverloadedException} (and the server's own admission limit) is {@code
 *       RESOURCE_EXHAUSTED} with a {@code google.rpc.RetryInfo} saying when to retry; {@link
 *       StorageFullException} (a full disk) is {@code RESOURCE_EXHAUSTED} naming the cause, without
 *       one: it passes only when space is freed.
 *   <li>Anything unexpected is {@code INTERNAL} carrying only an error id ({@code internal error,
 *       id 7f3a…}, also as {@code google.rpc.RequestInfo.request_id}); the id is logged with the
 *       stack trace at error level. Exception class and text never reach a client.
 *   <li>Every message, field path and description is cut ({@link SafeText}) so the status always
 *       fits in the trailers.
 * </ul>
 *
 * <p>HTTP endpoints ({@link HttpEndpoint}) get the same mapping as HTTP statuses ({@link #toHttp}):
 * the gRPC code's usual HTTP status, 413 for a request over a size limit, 429 with a retry delay
 * for overload, 500 with an error id for the unexpected.
 *
 * <p>{@link ExceptionMappingInterceptor} runs {@link #sanitize} on every status a service closes a
 * call with, so handlers that build statuses by hand ({@code responses.onError(...)}) get the same
 * treatment.
 */
public final class StatusMapper {
  private static final Logger log = LoggerFactory.getLogger(StatusMapper.class);

  /** The prefix of every INTERNAL/UNKNOWN message a Tenbin server sends. */
  public static final String INTERNAL_PREFIX = "internal error, id ";

  private static final Metadata.Key<com.google.rpc.Status> DETAILS_KEY =
      ProtoUtils.keyForProto(com.google.rpc.Status.getDefaultInstance());

  private StatusMapper() {}

  public static StatusRuntimeException toStatusException(Throwable failure) {
    if (failure instanceof StatusRuntimeException sre) {
      return sre;
    }
    if (failure instanceof OverloadedException overloaded) {
      return overloaded(overloaded.getMessage(), overloaded.retryAfter());
    }
    if (failure instanceof TenbinException te && codeOf(te) != Code.INTERNAL) {
      return withField(codeOf(te), te.getMessage(), te.field());
    }
    return internal(Code.INTERNAL, null, failure);
  }

  /**
   * A failure as an HTTP endpoint reports it.
   *
   * @param status the HTTP status
   * @param type the error's kind, snake case ({@code invalid_request_error}, {@code
   *     rate_limit_error}, ...), as OpenAI-style clients expect it in {@code error.type}
   * @param message what went wrong, cut to fit ({@link SafeText})
   * @param field the request field at fault, or null
   * @param retryAfter when to retry (429 and 503), or null
   */
  public record HttpFailure(
      int status, String type, String message, String field, Duration retryAfter) {}

  /** The HTTP form of {@link #toStatusException}: the same codes, messages and fields. */
  public static HttpFailure toHttp(Throwable failure) {
    if (failure instanceof OverloadedException overloaded) {
      return new HttpFailure(
          429,
          "rate_limit_error",
          SafeText.message(overloaded.getMessage()),
          null,
          overloaded.retryAfter());
    }
    if (failure instanceof TenbinException te && codeOf(te) != Code.INTERNAL) {
      String message = SafeText.message(te.getMessage() == null ? "" : te.getMessage());
      String field = te.field() == null ? null : SafeText.cut(te.field(), SafeText.MAX_FIELD_BYTES);
      if (te instanceof InvalidInputException invalid && invalid.isTooLarge()) {
        return new HttpFailure(413, "request_too_large", message, field, null);
      }
      Code code = codeOf(te);
      return switch (code) {
        case INVALID_ARGUMENT, FAILED_PRECONDITION ->
            new HttpFailure(400, "invalid_request_error", message, field, null);
        case NOT_FOUND -> new HttpFailure(404, "not_found_error", message, field, null);
        case ALREADY_EXISTS -> new HttpFailure(409, "conflict_error", message, field, null);
        case PERMISSION_DENIED -> new HttpFailure(403, "permission_error", message, field, null);
        case CANCELLED -> new HttpFailure(499, "cancelled", message, field, null);
        case RESOURCE_EXHAUSTED ->
            new HttpFailure(507, "insufficient_storage", message, field, null);
        case UNAVAILABLE ->
            new HttpFailure(
                503,
                "service_unavailable",
                message,
                field,
                OverloadedException.DEFAULT_RETRY_AFTER);
        default -> internalHttp(failure);
      };
    }
    return internalHttp(failure);
  }

  private static HttpFailure internalHttp(Throwable failure) {
    String id = newErrorId();
    log.error("{}{}: unexpected failure of an HTTP call", INTERNAL_PREFIX, id, failure);
    return new HttpFailure(500, "server_error", INTERNAL_PREFIX + id, null, null);
  }

  /** A status with an optional field violation in its details; message and field are cut. */
  public static StatusRuntimeException withField(Code code, String message, String field) {
    String safe = SafeText.message(message == null ? "" : message);
    com.google.rpc.Status.Builder status =
        com.google.rpc.Status.newBuilder().setCode(code.getNumber()).setMessage(safe);
    if (field != null && !field.isEmpty()) {
      BadRequest badRequest =
          BadRequest.newBuilder()
              .addFieldViolations(
                  BadRequest.FieldViolation.newBuilder()
                      .setField(SafeText.cut(field, SafeText.MAX_FIELD_BYTES))
                      .setDescription(SafeText.cut(safe, SafeText.MAX_DESCRIPTION_BYTES)))
              .build();
      status.addDetails(Any.pack(badRequest));
    }
    return StatusProto.toStatusRuntimeException(status.build());
  }

  /** {@code RESOURCE_EXHAUSTED} with a {@code google.rpc.RetryInfo} of {@code retryAfter}. */
  public static StatusRuntimeException overloaded(String message, Duration retryAfter) {
    return withRetry(Code.RESOURCE_EXHAUSTED, message == null ? "overloaded" : message, retryAfter);
  }

  /**
   * {@code UNAVAILABLE} with a {@code google.rpc.RetryInfo} of {@code retryAfter}: a server that is
   * stopping hands a call back this way (the call may be sent again, elsewhere or later).
   */
  public static StatusRuntimeException unavailable(String message, Duration retryAfter) {
    return withRetry(Code.UNAVAILABLE, message, retryAfter);
  }

  private static StatusRuntimeException withRetry(Code code, String message, Duration retryAfter) {
    Duration delay =
        retryAfter == null || retryAfter.isNegative()
            ? OverloadedException.DEFAULT_RETRY_AFTER
            : retryAfter;
    RetryInfo retry =
        RetryInfo.newBuilder()
            .setRetryDelay(
                com.google.protobuf.Duration.newBuilder()
                    .setSeconds(delay.getSeconds())
                    .setNanos(delay.getNano()))
            .build();
    return StatusProto.toStatusRuntimeException(
        com.google.rpc.Status.newBuilder()
            .setCode(code.getNumber())
            .setMessage(SafeText.message(message))
            .addDetails(Any.pack(retry))
            .build());
  }

  /**
   * An error-id status for an unexpected failure: the id, what is known and the stack trace go to
   * the log at error level; the client sees the id only.
   */
  private static StatusRuntimeException internal(Code code, String context, Throwable failure) {
    String id = newErrorId();
    String what = context == null ? "unexpected failure" : context;
    if (failure == null) {
      log.error("{}{}: {}", INTERNAL_PREFIX, id, what);
    } else {
      log.error("{}{}: {}", INTERNAL_PREFIX, id, what, failure);
    }
    return StatusProto.toStatusRuntimeException(
        com.google.rpc.Status.newBuilder()
            .setCode(code.getNumber())
            .setMessage(INTERNAL_PREFIX + id)
            .addDetails(Any.pack(RequestInfo.newBuilder().setRequestId(id).build()))
            .build());
  }

  /** A status and trailers fit to send. */
  public record Outgoing(Status status, Metadata trailers) {}

  /**
   * Makes a status safe to send: INTERNAL and UNKNOWN without an error id get one (logged with the
   * description and cause), messages and details are cut. {@code method} names the call in logs.
   */
  public static Outgoing sanitize(Status status, Metadata trailers, String method) {
    Metadata safeTrailers = trailers == null ? new Metadata() : trailers;
    boolean internal =
        status.getCode() == Status.Code.INTERNAL || status.getCode() == Status.Code.UNKNOWN;
    String description = status.getDescription();
    if (internal && (description == null || !description.startsWith(INTERNAL_PREFIX))) {
      StatusRuntimeException replacement =
          internal(
              Code.forNumber(status.getCode().value()),
              method + " closed with " + status.getCode() + ": " + SafeText.cut(description, 4096),
              status.getCause());
      safeTrailers.discardAll(DETAILS_KEY);
      safeTrailers.merge(replacement.getTrailers());
      return new Outgoing(replacement.getStatus(), safeTrailers);
    }
    Status safe = status;
    if (SafeText.needsCut(description, SafeText.MAX_MESSAGE_BYTES)) {
      safe = status.withDescription(SafeText.message(description));
    }
    com.google.rpc.Status details = safeTrailers.get(DETAILS_KEY);
    if (details != null) {
      com.google.rpc.Status cut = cutDetails(details);
      if (cut != details) {
        safeTrailers.discardAll(DETAILS_KEY);
        safeTrailers.put(DETAILS_KEY, cut);
      }
    }
    return new Outgoing(safe, safeTrailers);
  }

  private static com.google.rpc.Status cutDetails(com.google.rpc.Status details) {
    boolean changed = SafeText.needsCut(details.getMessage(), SafeText.MAX_MESSAGE_BYTES);
    com.google.rpc.Status.Builder cut =
        details.toBuilder().setMessage(SafeText.message(details.getMessage())).clearDetails();
    for (Any detail : details.getDetailsList()) {
      if (detail.is(BadRequest.class)) {
        try {
          BadRequest badRequest = detail.unpack(BadRequest.class);
          BadRequest.Builder safe = BadRequest.newBuilder();
          for (BadRequest.FieldViolation violation : badRequest.getFieldViolationsList()) {
            changed |= SafeText.needsCut(violation.getField(), SafeText.MAX_FIELD_BYTES);
            changed |=
                SafeText.needsCut(violation.getDescription(), SafeText.MAX_DESCRIPTION_BYTES);
            safe.addFieldViolations(
                violation.toBuilder()
                    .setField(SafeText.cut(violation.getField(), SafeText.MAX_FIELD_BYTES))
                    .setDescription(
                        SafeText.cut(violation.getDescription(), SafeText.MAX_DESCRIPTION_BYTES)));
          }
          cut.addDetails(Any.pack(safe.build()));
        } catch (InvalidProtocolBufferException e) {
          changed = true;
        }
      } else if (detail.getSerializedSize() <= 2 * SafeText.MAX_MESSAGE_BYTES) {
        cut.addDetails(detail);
      } else {
        changed = true;
      }
    }
    return changed ? cut.build() : details;
  }

  /** The field named by a status's BadRequest details, or null. */
  public static String violatedField(Throwable failure) {
    return unpack(failure, BadRequest.class)
        .filter(badRequest -> badRequest.getFieldViolationsCount() > 0)
        .map(badRequest -> badRequest.getFieldViolations(0).getField())
        .orElse(null);
  }

  /** The retry delay a status's {@code RetryInfo} suggests, if it has one. */
  public static Optional<Duration> retryDelay(Throwable failure) {
    return unpack(failure, RetryInfo.class)
        .filter(RetryInfo::hasRetryDelay)
        .map(
            retry ->
                Duration.ofSeconds(
                    retry.getRetryDelay().getSeconds(), retry.getRetryDelay().getNanos()));
  }

  private static <T extends com.google.protobuf.Message> Optional<T> unpack(
      Throwable failure, Class<T> type) {
    com.google.rpc.Status status = StatusProto.fromThrowable(failure);
    if (status == null) {
      return Optional.empty();
    }
    for (Any detail : status.getDetailsList()) {
      if (detail.is(type)) {
        try {
          return Optional.of(detail.unpack(type));
        } catch (InvalidProtocolBufferException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  private static String newErrorId() {
    return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
  }

  private static Code codeOf(TenbinException failure) {
    return switch (failure) {
      case InvalidInputException e -> Code.INVALID_ARGUMENT;
      case NotFoundException e -> Code.NOT_FOUND;
      case AlreadyExistsException e -> Code.ALREADY_EXISTS;
      case OverloadedException e -> Code.RESOURCE_EXHAUSTED;
      case StorageFullException e -> Code.RESOURCE_EXHAUSTED;
      case PreconditionException e -> Code.FAILED_PRECONDITION;
      case CancelledException e -> Code.CANCELLED;
      case UnavailableException e -> Code.UNAVAILABLE;
      case PermissionDeniedException e -> Code.PERMISSION_DENIED;
      default -> Code.INTERNAL;
    };
  }
}
