package dev.tenbin.encoder.config;

import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.model.HostsModels;
import dev.tenbin.model.ModelHosting;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.onnx.ExecutionOptions;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.rpc.ServerSettings;
import java.nio.file.Path;

/**
 * The encoder service's one typed configuration.
 *
 * @param server network settings
 * @param hosting where models come from (local models folder, cache folder for hub downloads and
 *     LightRetriever caches, hub), which may be loaded and when an unused one is unloaded, and how
 *     ONNX Runtime runs them
 * @param batching token-budget batching limits
 * @param maxInputsPerRequest largest number of texts in one request
 * @param maxTextChars largest text accepted, in characters
 * @param maxRequestChars largest total of characters over the texts of one request
 * @param httpPort port of the HTTP endpoint beside gRPC ({@code POST /v1/embeddings}, {@code GET
 *     /health}); 0 picks a free one, -1 (the default) serves none
 */
public record EncoderServiceConfig(
    ServerSettings server,
    ModelHosting hosting,
    BatchingLimits batching,
    int maxInputsPerRequest,
    int maxTextChars,
    long maxRequestChars,
    int httpPort)
    implements HostsModels {
  public static final int DEFAULT_PORT = 50051;

  /** {@link #httpPort} when no HTTP endpoint is served. */
  public static final int NO_HTTP = -1;

  /**
   * Characters per request a network server accepts by default: tokenizing that many takes seconds,
   * not minutes, on one core.
   */
  public static final long DEFAULT_MAX_REQUEST_CHARS = 10_000_000;

  public EncoderServiceConfig {
    if (maxInputsPerRequest < 1) {
      throw new IllegalArgumentException("--max-inputs-per-request must be positive");
    }
    if (maxTextChars < 1) {
      throw new IllegalArgumentException("--max-text-chars must be positive");
    }
    if (maxRequestChars < maxTextChars) {
      throw new IllegalArgumentException(
          "--max-request-chars ("
              + maxRequestChars
              + ") must be at least --max-text-chars ("
              + maxTextChars
              + ")");
    }
    if (maxInputsPerRequest > batching.maxQueuedInputs()) {
      throw new IllegalArgumentException(
          "--max-inputs-per-request ("
              + maxInputsPerRequest
              + ") must not exceed --max-queued-inputs ("
              + batching.maxQueuedInputs()
              + "): such a request could never be queued");
    }
    if (server == null) {
      throw new IllegalArgumentException("server settings are required");
    }
    if (hosting == null) {
      throw new IllegalArgumentException("model hosting (sources, policy, runtime) is required");
    }
    if (httpPort < NO_HTTP || httpPort > 65535) {
      throw new IllegalArgumentException(
          "--http-port must be -1 (off) or within 0..65535, got " + httpPort);
    }
  }

  /**
   * The batching limits, with the token budget of this configuration's execution provider where it
   * was left to it ({@link BatchingLimits#BY_PROVIDER}).
   */
  @Override
  public BatchingLimits batching() {
    return batching.resolvedFor(runtime().cuda());
  }

  /** The hub's base URL. */
  public String hubEndpoint() {
    return sources().hub().endpoint();
  }

  /**
   * Defaults for embedded use and tests: every model the user names may be loaded (this is the
   * user's own process), none is unloaded, no cap on a request's characters.
   */
  public static EncoderServiceConfig embedded(Path modelsDirectory, Path cacheDirectory) {
    return new EncoderServiceConfig(
        ServerSettings.ephemeral(),
        ModelHosting.embedded(modelsDirectory, cacheDirectory),
        BatchingLimits.DEFAULT,
        10_000,
        100_000,
        Long.MAX_VALUE,
        NO_HTTP);
  }

  /** These batching limits; the inputs-per-request cap shrinks to the queue bound if larger. */
  public EncoderServiceConfig withBatching(BatchingLimits limits) {
    return new EncoderServiceConfig(
        server,
        hosting,
        limits,
        Math.min(maxInputsPerRequest, limits.maxQueuedInputs()),
        maxTextChars,
        maxRequestChars,
        httpPort);
  }

  /** Another Hugging Face hub endpoint (a mirror, or a fake one in tests). */
  public EncoderServiceConfig withHubEndpoint(String endpoint) {
    return withHosting(hosting.withSources(sources().withHubEndpoint(endpoint)));
  }

  /** These caps on one request: texts per request and characters per text. */
  public EncoderServiceConfig withRequestLimits(int maxInputs, int maxChars) {
    return new EncoderServiceConfig(
        server,
        hosting,
        batching,
        maxInputs,
        maxChars,
        Math.max(maxChars, maxRequestChars),
        httpPort);
  }

  /** This cap on the characters of one request. */
  public EncoderServiceConfig withMaxRequestChars(long maxChars) {
    return new EncoderServiceConfig(
        server, hosting, batching, maxInputsPerRequest, maxTextChars, maxChars, httpPort);
  }

  /** This model policy (allowed models, idle unloading). */
  public EncoderServiceConfig withModels(ModelPolicy policy) {
    return withHosting(hosting.withPolicy(policy));
  }

  /** This model hosting (sources, policy, runtime). */
  public EncoderServiceConfig withHosting(ModelHosting value) {
    return new EncoderServiceConfig(
        server, value, batching, maxInputsPerRequest, maxTextChars, maxRequestChars, httpPort);
  }

  /** This HTTP port (0: a free one; {@link #NO_HTTP}: no HTTP endpoint), same server settings. */
  public EncoderServiceConfig withHttpPort(int port) {
    return new EncoderServiceConfig(
        server, hosting, batching, maxInputsPerRequest, maxTextChars, maxRequestChars, port);
  }

  /** These server settings (address, security, limits). */
  public EncoderServiceConfig withServer(ServerSettings settings) {
    return new EncoderServiceConfig(
        settings, hosting, batching, maxInputsPerRequest, maxTextChars, maxRequestChars, httpPort);
  }

  /**
   * The execution provider, device and arena limit of {@code execution}, keeping the thread count
   * (the embedded encoder of {@code tenbin run/eval}).
   */
  public EncoderServiceConfig withExecution(ExecutionOptions execution) {
    return withRuntime(execution.toRuntime(runtime().intraOpThreads()));
  }

  /** This ONNX Runtime setting (threads, execution provider, device, arena limit). */
  public EncoderServiceConfig withRuntime(OnnxModel.RuntimeOptions newRuntime) {
    return withHosting(hosting.withRuntime(newRuntime));
  }

  /** These batching limits with another maximum queue delay. */
  public EncoderServiceConfig withMaxQueueDelay(java.time.Duration delay) {
    return withBatching(batching.withMaxQueueDelay(delay));
  }
}
