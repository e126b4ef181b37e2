package dev.tenbin.eval.grpc;

import dev.tenbin.proto.eval.v1.EvalServiceGrpc;

/**
 * Adapter for {@code tenbin.eval.v1}. Jobs (submit, watch, cancel, results) arrive with the
 * orchestrator issue; until then every RPC answers UNIMPLEMENTED (the generated base class).
 */
public final class EvalGrpcService extends EvalServiceGrpc.EvalServiceImplBase {}
