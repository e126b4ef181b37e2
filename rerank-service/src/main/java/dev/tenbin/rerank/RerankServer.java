package dev.tenbin.rerank;

import dev.tenbin.core.OrderedShutdown;
import dev.tenbin.encoder.model.ModelPolicy;
import dev.tenbin.rerank.grpc.RerankGrpcService;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerOptions;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs the rerank service: {@code tenbin.rerank.v1} over gRPC. */
@Command(
    name = "rerank-service",
    mixinStandardHelpOptions = true,
    description = "Re-orders fixed candidate sets with cross-encoders and retrieval models.")
public final class RerankServer implements Callable<Integer> {
  @Mixin ServerOptions serverOptions = new ServerOptions();

  /** How to reach the encoder (--service-tls-ca, --service-auth-token-file, ...). */
  @Mixin dev.tenbin.rpc.ServiceClientOptions encoderSecurity = new dev.tenbin.rpc.ServiceClientOptions();

  @Option(
      names = "--max-pairs-per-request",
      defaultValue = "${env:TENBIN_RERANK_MAX_PAIRS:-1000}",
      description = "Largest number of candidates in one rerank request (default ${DEFAULT-VALUE}).")
  int maxPairs;

  @Option(names = "--models-dir", defaultValue = "${env:TENBIN_MODELS_DIR:-models}",
      description = "Folder of cross-encoders, <id>/card.json (default ${DEFAULT-VALUE}).")
  java.nio.file.Path modelsDirectory;

  @Option(names = "--cache-dir", defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}") java.nio.file.Path cacheDirectory;

  @Option(names = "--encoder-endpoint", defaultValue = "${env:TENBIN_ENCODER_ENDPOINT:-localhost:50051}",
      description = "Encoder service for bi-encoder rerankers (dense:MODEL) (default ${DEFAULT-VALUE}).")
  String encoderEndpoint;

  @Option(names = "--max-batch-tokens", defaultValue = "8192", description = "Padded tokens per forward pass.")
  int maxBatchTokens;

  @Option(names = "--allow-models", split = ",", paramLabel = "PATTERN",
      description = {"Which cross-encoders may be loaded; repeatable or comma-separated (env TENBIN_ALLOW_MODELS). A"
          + " glob (* any characters, ? one; case-insensitive) over the id of a model in --models-dir ('ms-marco-*'),"
          + " or SOURCE:ID with SOURCE local or hub ('local:*', 'hub:BAAI/*' for any BAAI repository at any"
          + " revision, 'hub:*').",
          "Hub downloads are off unless a hub: pattern allows them. Default: builtin:*,local:*. A model not allowed"
          + " is PERMISSION_DENIED naming model_id. Bi-encoder rerankers (dense:MODEL ...) are checked by the"
          + " encoder service they run on."})
  List<String> allowModels;

  @Option(names = "--model-idle-seconds", defaultValue = "${env:TENBIN_MODEL_IDLE_SECONDS:-600}",
      description = "Unload a cross-encoder no call has used for this long; 0 = never (env TENBIN_MODEL_IDLE_SECONDS;"
          + " default ${DEFAULT-VALUE}).")
  long modelIdleSeconds;

  public RerankServiceConfig config() {
    List<String> patterns = allowModels;
    if (patterns == null || patterns.isEmpty()) {
      String env = System.getenv("TENBIN_ALLOW_MODELS");
      patterns = env == null ? List.of() : List.of(env);
    }
    return new RerankServiceConfig(
        serverOptions.toSettings(RerankServiceConfig.DEFAULT_PORT), maxPairs, ModelPolicy.of(patterns, modelIdleSeconds));
  }

  /**
   * The core over a models folder, with bi-encoders reached through {@code encoderChannel}; every
   * reranker allowed and none unloaded (the services embedded in {@code tenbin run/eval}).
   */
  public static RerankCore core(
      java.nio.file.Path models, java.nio.file.Path cache, java.util.function.Supplier<io.grpc.Channel> encoderChannel,
      int maxPairs, int maxBatchTokens) {
    return core(models, cache, encoderChannel, maxPairs, maxBatchTokens, ModelPolicy.allowAll());
  }

  /** The core over a models folder under a model policy. */
  public static RerankCore core(
      java.nio.file.Path models, java.nio.file.Path cache, java.util.function.Supplier<io.grpc.Channel> encoderChannel,
      int maxPairs, int maxBatchTokens, ModelPolicy policy) {
    var registry =
        new dev.tenbin.rerank.cross.RerankerRegistry(
            models, new dev.tenbin.encoder.model.HubDownloader("https://huggingface.co", cache, System.getenv("HF_TOKEN")),
            dev.tenbin.encoder.onnx.OnnxModel.RuntimeOptions.cpu(Runtime.getRuntime().availableProcessors()), maxBatchTokens,
            policy);
    dev.tenbin.rerank.bi.BiEncoderReranker[] biEncoder = new dev.tenbin.rerank.bi.BiEncoderReranker[1];
    return new RerankCore(
        registry,
        () -> {
          synchronized (biEncoder) {
            if (biEncoder[0] == null) {
              biEncoder[0] = new dev.tenbin.rerank.bi.BiEncoderReranker(dev.tenbin.encoder.client.EncoderClient.of(encoderChannel.get()));
            }
            return biEncoder[0];
          }
        },
        maxPairs);
  }

  /** A rerank service started in-process (embedded), with the core it serves. */
  public record Embedded(RerankCore core, GrpcServerHost host) implements AutoCloseable {
    @Override
    public void close() {
      host.close();
      core.close();
    }
  }

  /**
   * Starts the embedded rerank service under the in-process name {@code name} (every reranker allowed,
   * none unloaded), with bi-encoders reached through {@code encoderChannel}.
   */
  public static Embedded startInProcess(
      String name, java.nio.file.Path models, java.nio.file.Path cache,
      java.util.function.Supplier<io.grpc.Channel> encoderChannel, int maxPairs, int maxBatchTokens,
      io.micrometer.core.instrument.MeterRegistry registry) {
    RerankCore core = core(models, cache, encoderChannel, maxPairs, maxBatchTokens);
    try {
      return new Embedded(core, GrpcServerHost.startInProcess(name, registry, List.of(new RerankGrpcService(core))));
    } catch (RuntimeException e) {
      core.close();
      throw e;
    }
  }

  @Override
  public Integer call() throws Exception {
    RerankServiceConfig config = config();
    int colon = encoderEndpoint.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("--encoder-endpoint must be host:port, got '" + encoderEndpoint + "'");
    }
    io.grpc.ManagedChannel encoder =
        dev.tenbin.rpc.ClientChannels.open(
            encoderEndpoint.substring(0, colon), Integer.parseInt(encoderEndpoint.substring(colon + 1)),
            encoderSecurity.toSecurity(), dev.tenbin.rpc.ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
    RerankCore core =
        core(modelsDirectory, cacheDirectory, () -> encoder, config.maxPairsPerRequest(), maxBatchTokens, config.models());
    GrpcServerHost host;
    try {
      host = GrpcServerHost.start(config.server(), List.of(new RerankGrpcService(core)));
    } catch (RuntimeException e) {
      core.close();
      encoder.shutdownNow();
      throw e;
    }
    // Servers stop first (in-flight calls get their grace), then the core's cross-encoders.
    OrderedShutdown.register(OrderedShutdown.Stage.SERVERS, "rerank-service server", host);
    core.bindTo(host.registry());
    System.err.printf(
        "rerank-service listening on %s:%d (metrics port %d)%n",
        config.server().host(), host.port(), host.metricsPort());
    host.blockUntilShutdown();
    core.close();
    encoder.shutdownNow();
    return 0;
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new RerankServer());
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("rerank-service: " + e.getMessage());
          return 2;
        });
    System.exit(cli.execute(args));
  }
}
