package dev.tenbin.rpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Set;

/**
 * Lets a call through only with {@code authorization: Bearer <token>} naming one of the server's
 * {@link BearerTokens}; anything else is {@code UNAUTHENTICATED} with a message that says what to
 * send and nothing about which tokens exist. {@code grpc.health.v1.Health} stays open (Kubernetes
 * probes and load balancers carry no token); server reflection needs a token like every service
 * (grpcurl sends {@code -H} headers with its reflection requests too). The header is removed once
 * checked, so nothing further down can log it.
 */
public final class BearerAuthInterceptor implements ServerInterceptor {
  static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** Services callable without a token. */
  public static final Set<String> OPEN_SERVICES = Set.of("grpc.health.v1.Health");

  private final BearerTokens tokens;
  private final Runnable onRefused;

  public BearerAuthInterceptor(BearerTokens tokens, Runnable onRefused) {
    this.tokens = tokens;
    this.onRefused = onRefused;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    if (OPEN_SERVICES.contains(call.getMethodDescriptor().getServiceName())) {
      return next.startCall(call, headers);
    }
    String refusal = tokens.refusal(headers.get(AUTHORIZATION));
    headers.discardAll(AUTHORIZATION);
    if (refusal != null) {
      onRefused.run();
      call.close(Status.UNAUTHENTICATED.withDescription(refusal), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }
}
