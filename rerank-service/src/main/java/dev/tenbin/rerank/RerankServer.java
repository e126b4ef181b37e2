package dev.tenbin.rerank;

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

  public RerankServiceConfig config() {
    return new RerankServiceConfig(serverOptions.toSettings(RerankServiceConfig.DEFAULT_PORT), maxPairs);
  }

  /** The core over a models folder, with bi-encoders reached through {@code encoderChannel}. */
  public static RerankCore core(
      java.nio.file.Path models, java.nio.file.Path cache, java.util.function.Supplier<io.grpc.Channel> encoderChannel,
      int maxPairs, int maxBatchTokens) {
    var registry =
        new dev.tenbin.rerank.cross.RerankerRegistry(
            models, new dev.tenbin.encoder.model.HubDownloader("https://huggingface.co", cache, System.getenv("HF_TOKEN")),
            dev.tenbin.encoder.onnx.OnnxModel.RuntimeOptions.cpu(Runtime.getRuntime().availableProcessors()), maxBatchTokens);
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
    RerankCore core = core(modelsDirectory, cacheDirectory, () -> encoder, config.maxPairsPerRequest(), maxBatchTokens);
    GrpcServerHost host =
        GrpcServerHost.start(config.server(), List.of(new RerankGrpcService(core)))
            .stopOnSignal("rerank-service");
    System.err.printf(
        "rerank-service listening on %s:%d (metrics port %d)%n",
        config.server().host(), host.port(), host.metricsPort());
    host.blockUntilShutdown();
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
