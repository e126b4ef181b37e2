package dev.tenbin.rerank.grpc;

import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.rerank.RerankServiceConfig;

/**
 * Adapter for {@code tenbin.rerank.v1}. Cross-encoder, yes/no and bi-encoder rerankers arrive
 * with the rerank issue; until then every RPC answers UNIMPLEMENTED (the generated base class).
 */
public final class RerankGrpcService extends RerankServiceGrpc.RerankServiceImplBase {
  private final RerankServiceConfig config;

  public RerankGrpcService(RerankServiceConfig config) {
    this.config = config;
  }

  public RerankServiceConfig config() {
    return config;
  }
}
