package dev.tenbin.index.config;

import dev.tenbin.rpc.ServerSettings;
import java.nio.file.Path;

/**
 * The index service's one typed configuration, built once from flags and environment.
 *
 * @param server network settings
 * @param dataDirectory where collections are persisted
 * @param maxTopK largest {@code top_k} a search may ask for
 * @param maxQueriesPerRequest largest number of queries in one search request
 */
public record IndexServiceConfig(
    ServerSettings server, Path dataDirectory, int maxTopK, int maxQueriesPerRequest) {
  public static final int DEFAULT_PORT = 50052;
  public static final int DEFAULT_MAX_TOP_K = 10_000;
  public static final int DEFAULT_MAX_QUERIES = 10_000;

  public IndexServiceConfig {
    if (maxTopK < 1) {
      throw new IllegalArgumentException("--max-top-k must be at least 1, got " + maxTopK);
    }
    if (maxQueriesPerRequest < 1) {
      throw new IllegalArgumentException(
          "--max-queries-per-request must be at least 1, got " + maxQueriesPerRequest);
    }
  }

  /** Defaults for embedded use and tests. */
  public static IndexServiceConfig embedded(Path dataDirectory) {
    return new IndexServiceConfig(
        ServerSettings.ephemeral(), dataDirectory, DEFAULT_MAX_TOP_K, DEFAULT_MAX_QUERIES);
  }
}
