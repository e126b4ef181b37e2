package dev.tenbin.rpc;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.Code;
import dev.tenbin.core.AlreadyExistsException;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.OverloadedException;
import dev.tenbin.core.PermissionDeniedException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.TenbinException;
import dev.tenbin.core.UnavailableException;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where core exceptions become gRPC statuses. Field-specific failures carry a
 * {@code google.rpc.BadRequest} with a field violation, so clients know which field was wrong.
 */
public final class StatusMapper {
  private static final Logger log = LoggerFactory.getLogger(StatusMapper.class);

  private StatusMapper() {}

  public static StatusRuntimeException toStatusException(Throwable failure) {
    if (failure instanceof StatusRuntimeException sre) {
      return sre;
    }
    if (failure instanceof TenbinException te) {
      return withField(codeOf(te), te.getMessage(), te.field());
    }
    log.error("unexpected failure in a service core", failure);
    return withField(Code.INTERNAL, "internal error: " + failure, null);
  }

  /** A status with an optional field violation in its details. */
  public static StatusRuntimeException withField(Code code, String message, String field) {
    com.google.rpc.Status.Builder status =
        com.google.rpc.Status.newBuilder().setCode(code.getNumber()).setMessage(message);
    if (field != null && !field.isEmpty()) {
      BadRequest badRequest =
          BadRequest.newBuilder()
              .addFieldViolations(
                  BadRequest.FieldViolation.newBuilder().setField(field).setDescription(message))
              .build();
      status.addDetails(Any.pack(badRequest));
    }
    return StatusProto.toStatusRuntimeException(status.build());
  }

  /** The field named by a status's BadRequest details, or null. */
  public static String violatedField(Throwable failure) {
    com.google.rpc.Status status = StatusProto.fromThrowable(failure);
    if (status == null) {
      return null;
    }
    for (Any detail : status.getDetailsList()) {
      if (detail.is(BadRequest.class)) {
        try {
          BadRequest badRequest = detail.unpack(BadRequest.class);
          if (badRequest.getFieldViolationsCount() > 0) {
            return badRequest.getFieldViolations(0).getField();
          }
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
          return null;
        }
      }
    }
    return null;
  }

  private static Code codeOf(TenbinException failure) {
    return switch (failure) {
      case InvalidInputException e -> Code.INVALID_ARGUMENT;
      case NotFoundException e -> Code.NOT_FOUND;
      case AlreadyExistsException e -> Code.ALREADY_EXISTS;
      case OverloadedException e -> Code.RESOURCE_EXHAUSTED;
      case PreconditionException e -> Code.FAILED_PRECONDITION;
      case CancelledException e -> Code.CANCELLED;
      case UnavailableException e -> Code.UNAVAILABLE;
      case PermissionDeniedException e -> Code.PERMISSION_DENIED;
      default -> Code.INTERNAL;
    };
  }
}
