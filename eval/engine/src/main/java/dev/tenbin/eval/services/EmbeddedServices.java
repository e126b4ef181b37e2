package dev.tenbin.eval.services;

import dev.tenbin.client.encoder.DenseEncoding;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.model.onnx.ExecutionOptions;
import java.nio.file.Path;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/**
 * Starts the index, encoder and rerank services inside this process, each reached over gRPC's
 * in-process transport under the name given: what {@link Services} does for every service that has
 * no endpoint (the embedded default). The engine knows the services only through their contracts,
 * so the implementation lives with the application that bundles them and is found with {@link
 * ServiceLoader} (as Lucene finds its codecs); a build without one serves remote endpoints only.
 */
public interface EmbeddedServices {

  /** Starts an index service on {@code dataDirectory} (which must be empty or its own). */
  AutoCloseable startIndex(String inProcessName, Path dataDirectory);

  /** Starts an encoder over the local models folder and the model cache, on {@code execution}. */
  AutoCloseable startEncoder(
      String inProcessName, Path modelsDirectory, Path cacheDirectory, ExecutionOptions execution);

  /**
   * Starts a rerank service whose bi-encoders take their vectors from {@code dense} (through the
   * encoder {@code encoder} gives), whose candidates given by id come from the index {@code index}
   * gives, and whose cross-encoders run on {@code execution}.
   */
  AutoCloseable startRerank(
      String inProcessName,
      Path modelsDirectory,
      Path cacheDirectory,
      Supplier<EncoderClient> encoder,
      DenseEncoding dense,
      Supplier<IndexClient> index,
      ExecutionOptions execution);

  /** The implementation on the class path, if any. */
  static Optional<EmbeddedServices> installed() {
    return ServiceLoader.load(EmbeddedServices.class, EmbeddedServices.class.getClassLoader())
        .findFirst();
  }

  /** The installed implementation, or a clear refusal naming the endpoint to give instead. */
  static EmbeddedServices require(String endpointOption) {
    return installed()
        .orElseThrow(
            () ->
                new dev.tenbin.core.InvalidInputException(
                    endpointOption,
                    "this build embeds no services; give "
                        + endpointOption
                        + " to reach a running one"));
  }
}
