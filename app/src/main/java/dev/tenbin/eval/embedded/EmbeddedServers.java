package dev.tenbin.eval.embedded;

import dev.tenbin.client.encoder.DenseEncoding;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.server.EncoderServer;
import dev.tenbin.eval.services.EmbeddedServices;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.model.onnx.ExecutionOptions;
import dev.tenbin.rerank.server.RerankServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * The services of this application started in its own process: the embedded default of {@code
 * tenbin run}, {@code eval} and the eval service when no endpoint is given. Each gets a meter
 * registry of its own (an embedded service exports no metrics).
 */
public final class EmbeddedServers implements EmbeddedServices {
  /** Candidate pairs per rerank request the embedded rerank service accepts. */
  static final int RERANK_MAX_PAIRS = 1000;

  /** Tokens per cross-encoder batch of the embedded rerank service. */
  static final int RERANK_MAX_BATCH_TOKENS = 8192;

  @Override
  public AutoCloseable startIndex(String inProcessName, Path dataDirectory) {
    return IndexServer.startInProcess(inProcessName, dataDirectory, new SimpleMeterRegistry());
  }

  @Override
  public AutoCloseable startEncoder(
      String inProcessName, Path modelsDirectory, Path cacheDirectory, ExecutionOptions execution) {
    EncoderServiceConfig config =
        EncoderServiceConfig.embedded(modelsDirectory, cacheDirectory).withExecution(execution);
    return EncoderServer.startInProcess(inProcessName, config, new SimpleMeterRegistry());
  }

  @Override
  public AutoCloseable startRerank(
      String inProcessName,
      Path modelsDirectory,
      Path cacheDirectory,
      Supplier<EncoderClient> encoder,
      DenseEncoding dense,
      Supplier<IndexClient> index,
      ExecutionOptions execution) {
    return RerankServer.startInProcess(
        inProcessName,
        modelsDirectory,
        cacheDirectory,
        encoder,
        dense,
        index,
        RERANK_MAX_PAIRS,
        RERANK_MAX_BATCH_TOKENS,
        execution,
        new SimpleMeterRegistry());
  }
}
