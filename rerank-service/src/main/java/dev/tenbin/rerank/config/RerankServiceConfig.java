package dev.tenbin.rerank.config;

import dev.tenbin.model.HostsModels;
import dev.tenbin.model.ModelHosting;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.ServerSettings;
import dev.tenbin.rpc.ServiceEndpoint;
import dev.tenbin.rpc.ServiceTarget;

/**
 * The rerank service's one typed configuration, built once from flags and environment and checked
 * at start (a bad value is an {@link IllegalArgumentException} naming its flag).
 *
 * @param server network settings
 * @param hosting where cross-encoders come from (local models folder, hub downloads folder, hub),
 *     which may be loaded and when an unused one is unloaded, and how ONNX Runtime runs them
 * @param encoderEndpoint the encoder service bi-encoder rerankers ({@code dense:MODEL}) run on: one
 *     address, or a {@code dns:///} name whose replicas share the calls
 * @param encoderSecurity how to reach the encoder (TLS, token)
 * @param maxPairsPerRequest largest number of candidates one rerank request may carry
 * @param maxBatchTokens padded tokens per cross-encoder forward pass
 * @param index the index service candidates given by id ({@code index_documents}) are fetched from:
 *     one service (HOST:PORT, not a balanced dns:/// name), or the pods of an index StatefulSet,
 *     each call sent to the pod holding its collection (as the orchestrator places them); reached
 *     with {@code encoderSecurity}'s TLS and token; null: none, such requests are refused
 */
public record RerankServiceConfig(
    ServerSettings server,
    ModelHosting hosting,
    ServiceTarget encoderEndpoint,
    ClientSecurity encoderSecurity,
    int maxPairsPerRequest,
    int maxBatchTokens,
    ServiceEndpoint index)
    implements HostsModels {
  public static final int DEFAULT_PORT = 50053;
  public static final int DEFAULT_MAX_PAIRS = 1_000;
  public static final int DEFAULT_MAX_BATCH_TOKENS = 8192;

  public RerankServiceConfig {
    if (server == null) {
      throw new IllegalArgumentException("server settings are required");
    }
    if (hosting == null) {
      throw new IllegalArgumentException("model hosting (sources, policy, runtime) is required");
    }
    if (encoderEndpoint == null) {
      throw new IllegalArgumentException("--encoder-endpoint is required");
    }
    if (encoderSecurity == null) {
      encoderSecurity = ClientSecurity.plaintext();
    }
    if (maxPairsPerRequest < 1) {
      throw new IllegalArgumentException(
          "--max-pairs-per-request must be at least 1, got " + maxPairsPerRequest);
    }
    if (maxBatchTokens < 1) {
      throw new IllegalArgumentException(
          "--max-batch-tokens must be at least 1, got " + maxBatchTokens);
    }
    if (index != null && !index.placed() && index.target().balanced()) {
      throw new IllegalArgumentException(
          "--index-endpoint must be HOST:PORT: index pods each hold their own collections, so"
              + " calls cannot be spread with dns:///; give the pods with --index-pods");
    }
    if (index != null) {
      index = index.withSecurity(encoderSecurity);
    }
  }

  /** A configuration without an index service. */
  public RerankServiceConfig(
      ServerSettings server,
      ModelHosting hosting,
      ServiceTarget encoderEndpoint,
      ClientSecurity encoderSecurity,
      int maxPairsPerRequest,
      int maxBatchTokens) {
    this(
        server,
        hosting,
        encoderEndpoint,
        encoderSecurity,
        maxPairsPerRequest,
        maxBatchTokens,
        null);
  }
}
