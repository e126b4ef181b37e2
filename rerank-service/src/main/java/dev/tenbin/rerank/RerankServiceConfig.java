package dev.tenbin.rerank;

import dev.tenbin.encoder.model.ModelPolicy;
import dev.tenbin.rpc.ServerSettings;

/**
 * The rerank service's one typed configuration.
 *
 * @param server network settings
 * @param maxPairsPerRequest largest number of candidates one rerank request may carry
 * @param models which cross-encoders may be loaded, and when an unused one is unloaded
 */
public record RerankServiceConfig(ServerSettings server, int maxPairsPerRequest, ModelPolicy models) {
  public static final int DEFAULT_PORT = 50053;
  public static final int DEFAULT_MAX_PAIRS = 1_000;

  public RerankServiceConfig {
    if (maxPairsPerRequest < 1) {
      throw new IllegalArgumentException(
          "--max-pairs-per-request must be at least 1, got " + maxPairsPerRequest);
    }
    if (models == null) {
      throw new IllegalArgumentException("a model policy is required");
    }
  }
}
