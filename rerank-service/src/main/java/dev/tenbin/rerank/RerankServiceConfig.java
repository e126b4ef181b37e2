package dev.tenbin.rerank;

import dev.tenbin.encoder.model.HubAccess;
import dev.tenbin.encoder.model.ModelPolicy;
import dev.tenbin.encoder.onnx.OnnxModel;
import dev.tenbin.rpc.ClientSecurity;
import dev.tenbin.rpc.HostPort;
import dev.tenbin.rpc.ServerSettings;
import java.nio.file.Path;

/**
 * The rerank service's one typed configuration, built once from flags and environment and checked
 * at start (a bad value is an {@link IllegalArgumentException} naming its flag).
 *
 * @param server network settings
 * @param modelsDirectory folder of cross-encoders, {@code <id>/card.json}
 * @param cacheDirectory hub downloads
 * @param hub the Hugging Face hub cross-encoders are downloaded from, and its token
 * @param encoderEndpoint the encoder service bi-encoder rerankers ({@code dense:MODEL}) run on
 * @param encoderSecurity how to reach the encoder (TLS, token)
 * @param maxPairsPerRequest largest number of candidates one rerank request may carry
 * @param maxBatchTokens padded tokens per cross-encoder forward pass
 * @param models which cross-encoders may be loaded, and when an unused one is unloaded
 * @param runtime ONNX Runtime threads, execution provider, CUDA device and arena limit of the
 *     cross-encoders
 */
public record RerankServiceConfig(
    ServerSettings server,
    Path modelsDirectory,
    Path cacheDirectory,
    HubAccess hub,
    HostPort encoderEndpoint,
    ClientSecurity encoderSecurity,
    int maxPairsPerRequest,
    int maxBatchTokens,
    ModelPolicy models,
    OnnxModel.RuntimeOptions runtime) {
  public static final int DEFAULT_PORT = 50053;
  public static final int DEFAULT_MAX_PAIRS = 1_000;
  public static final int DEFAULT_MAX_BATCH_TOKENS = 8192;

  public RerankServiceConfig {
    if (server == null) {
      throw new IllegalArgumentException("server settings are required");
    }
    if (modelsDirectory == null) {
      throw new IllegalArgumentException("--models-dir is required");
    }
    if (cacheDirectory == null) {
      throw new IllegalArgumentException("--cache-dir is required");
    }
    if (hub == null) {
      throw new IllegalArgumentException("a hub endpoint (--hub-endpoint) is required");
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
    if (models == null) {
      throw new IllegalArgumentException("a model policy is required");
    }
    if (runtime == null) {
      runtime = OnnxModel.RuntimeOptions.cpu(Runtime.getRuntime().availableProcessors());
    }
  }

  /** A configuration whose cross-encoders run on the CPU, one intra-op thread per core. */
  public RerankServiceConfig(
      ServerSettings server,
      Path modelsDirectory,
      Path cacheDirectory,
      HubAccess hub,
      HostPort encoderEndpoint,
      ClientSecurity encoderSecurity,
      int maxPairsPerRequest,
      int maxBatchTokens,
      ModelPolicy models) {
    this(
        server,
        modelsDirectory,
        cacheDirectory,
        hub,
        encoderEndpoint,
        encoderSecurity,
        maxPairsPerRequest,
        maxBatchTokens,
        models,
        null);
  }
}
