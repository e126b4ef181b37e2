package dev.tenbin.rerank;

import dev.tenbin.rpc.ServerSettings;

/**
 * The rerank service's one typed configuration.
 *
 * @param server network settings
 * @param maxPairsPerRequest largest number of candidates one rerank request may carry
 */
public record RerankServiceConfig(ServerSettings server, int maxPairsPerRequest) {
  public static final int DEFAULT_PORT = 50053;
  public static final int DEFAULT_MAX_PAIRS = 1_000;

  public RerankServiceConfig {
    if (maxPairsPerRequest < 1) {
      throw new IllegalArgumentException(
          "--max-pairs-per-request must be at least 1, got " + maxPairsPerRequest);
    }
  }
}
