package dev.tenbin.rerank.server;

import dev.tenbin.client.encoder.DenseEncoding;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.model.ModelHosting;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.ModelSourceOptions;
import dev.tenbin.model.ModelSources;
import dev.tenbin.model.onnx.ExecutionOptions;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.rerank.CandidateTexts;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.config.RerankServiceConfig;
import dev.tenbin.rerank.documents.IndexDocuments;
import dev.tenbin.rerank.grpc.RerankGrpcService;
import dev.tenbin.rpc.ClientChannels;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.Preload;
import dev.tenbin.rpc.ServerMain;
import dev.tenbin.rpc.ServerOptions;
import dev.tenbin.rpc.ServiceClientOptions;
import dev.tenbin.rpc.ServiceEndpoint;
import dev.tenbin.rpc.ServiceTarget;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs the rerank service: {@code tenbin.rerank.v1} over gRPC. Flags and environment become one
 * {@link RerankServiceConfig} ({@link #config}); {@link #start} opens the encoder channel and the
 * core and hands both to the server host, which closes them after the server has stopped.
 */
@Command(
    name = "rerank-service",
    mixinStandardHelpOptions = true,
    description = "Re-orders fixed candidate sets with cross-encoders and retrieval models.")
public final class RerankServer implements Callable<Integer> {
  @Mixin ServerOptions serverOptions = new ServerOptions();

  /** Where cross-encoders come from (--models-dir, --cache-dir, --hub-endpoint). */
  @Mixin ModelSourceOptions modelSources = new ModelSourceOptions();

  /** --execution-provider, --device-id, --gpu-mem-limit of the cross-encoders. */
  @Mixin ExecutionOptions execution = new ExecutionOptions();

  /** How to reach the encoder (--service-tls-ca, --service-auth-token-file, ...). */
  @Mixin ServiceClientOptions encoderSecurity = new ServiceClientOptions();

  @Option(
      names = "--max-pairs-per-request",
      paramLabel = "N",
      defaultValue = "${env:TENBIN_RERANK_MAX_PAIRS:-1000}",
      description =
          "Largest number of candidates in one rerank request (env TENBIN_RERANK_MAX_PAIRS; default ${DEFAULT-VALUE}).")
  int maxPairs;

  @Option(
      names = "--encoder-endpoint",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:TENBIN_ENCODER_ENDPOINT:-localhost:50051}",
      description =
          "Encoder service for bi-encoder rerankers (dense:MODEL); [ADDRESS]:PORT for IPv6;"
              + " dns:///HOST:PORT spreads calls over every address of HOST (a headless Service)"
              + " with round_robin (env TENBIN_ENCODER_ENDPOINT; default ${DEFAULT-VALUE}).")
  String encoderEndpoint;

  @Option(
      names = "--index-endpoint",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:TENBIN_INDEX_ENDPOINT}",
      description =
          "Index service that rerank requests giving candidates by id (index_documents) fetch the"
              + " documents' title and text from, reached with the --service-* TLS and token options;"
              + " [ADDRESS]:PORT for IPv6; one service, not dns:/// (each index pod holds its own"
              + " collections; give a StatefulSet's pods with --index-pods) (env"
              + " TENBIN_INDEX_ENDPOINT; default: none, such requests are FAILED_PRECONDITION).")
  String indexEndpoint;

  @Option(
      names = "--index-pods",
      split = ",",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:TENBIN_INDEX_PODS}",
      description =
          "The pods of an index StatefulSet, each HOST:PORT by its stable name, comma-separated,"
              + " in the order and spelling the orchestrator's --index-pods has them: a request by id"
              + " fetches its documents from the pod that holds its collection (rendezvous"
              + " placement over these names, as the orchestrator creates collections). Instead of"
              + " --index-endpoint (env TENBIN_INDEX_PODS).")
  List<String> indexPods;

  @Option(
      names = "--max-batch-tokens",
      paramLabel = "N",
      defaultValue = "8192",
      description = "Padded tokens per forward pass (default ${DEFAULT-VALUE}).")
  int maxBatchTokens;

  @Option(
      names = "--allow-models",
      split = ",",
      paramLabel = "PATTERN",
      defaultValue = "${env:TENBIN_ALLOW_MODELS}",
      description = {
        "Which cross-encoders may be loaded; repeatable or comma-separated (env TENBIN_ALLOW_MODELS). A"
            + " glob (* any characters, ? one; case-insensitive) over the id of a model in --models-dir ('ms-marco-*'),"
            + " or SOURCE:ID with SOURCE local or hub ('local:*', 'hub:BAAI/*' for any BAAI repository at any"
            + " revision, 'hub:*').",
        "Hub downloads are off unless a hub: pattern allows them. Default: builtin:*,local:*. A model not allowed"
            + " is PERMISSION_DENIED naming model_id. Bi-encoder rerankers (dense:MODEL ...) are checked by the"
            + " encoder service they run on."
      })
  List<String> allowModels;

  @Option(
      names = "--model-idle-seconds",
      paramLabel = "N",
      defaultValue = "${env:TENBIN_MODEL_IDLE_SECONDS:-600}",
      description =
          "Unload a cross-encoder no call has used for this long; 0 = never (env TENBIN_MODEL_IDLE_SECONDS;"
              + " default ${DEFAULT-VALUE}).")
  long modelIdleSeconds;

  @Option(
      names = "--preload",
      split = ",",
      paramLabel = "RERANKER",
      defaultValue = "${env:TENBIN_PRELOAD}",
      description =
          "Load these cross-encoders at start (repeatable or comma-separated; env TENBIN_PRELOAD),"
              + " each warmed up with one scored pair; health (gRPC and GET /readyz) says"
              + " NOT_SERVING until they are loaded, and they are never unloaded for idleness. One"
              + " that cannot be loaded stops the server.")
  List<String> preload;

  /** The flags and environment as one checked config; a bad value names its flag. */
  public RerankServiceConfig config() {
    return new RerankServiceConfig(
        serverOptions.toSettings(RerankServiceConfig.DEFAULT_PORT),
        new ModelHosting(
            modelSources.toSources(),
            ModelPolicy.of(allowModels, modelIdleSeconds),
            execution.toRuntime(Runtime.getRuntime().availableProcessors()),
            preload),
        ServiceTarget.parse("--encoder-endpoint", encoderEndpoint),
        encoderSecurity.toSecurity(),
        maxPairs,
        maxBatchTokens,
        ServiceEndpoint.stateful("--index-endpoint", indexEndpoint, "--index-pods", indexPods));
  }

  /**
   * The core over a models folder, with bi-encoders calling the encoder {@code encoder} gives;
   * every reranker allowed and none unloaded, the hub from the environment (the services embedded
   * in {@code tenbin run/eval}).
   */
  public static RerankCore core(
      Path models, Path cache, Supplier<EncoderClient> encoder, int maxPairs, int maxBatchTokens) {
    return core(
        models,
        cache,
        encoder,
        maxPairs,
        maxBatchTokens,
        OnnxModel.RuntimeOptions.cpu(Runtime.getRuntime().availableProcessors()));
  }

  /**
   * As above, candidates given by id fetched through {@code indexDocuments} (the rerank benchmark's
   * by-id mode).
   */
  public static RerankCore core(
      Path models,
      Path cache,
      Supplier<EncoderClient> encoder,
      CandidateTexts indexDocuments,
      int maxPairs,
      int maxBatchTokens) {
    return core(
        ModelSources.embedded(models, cache),
        encoder,
        null,
        indexDocuments,
        maxPairs,
        maxBatchTokens,
        ModelPolicy.allowAll(),
        OnnxModel.RuntimeOptions.cpu(Runtime.getRuntime().availableProcessors()));
  }

  /** As above, with the cross-encoders on {@code runtime} (e.g. a CUDA device). */
  public static RerankCore core(
      Path models,
      Path cache,
      Supplier<EncoderClient> encoder,
      int maxPairs,
      int maxBatchTokens,
      OnnxModel.RuntimeOptions runtime) {
    return core(
        ModelSources.embedded(models, cache),
        encoder,
        null,
        CandidateTexts.none(),
        maxPairs,
        maxBatchTokens,
        ModelPolicy.allowAll(),
        runtime);
  }

  /** The core of a network server (candidates by id refused). */
  public static RerankCore core(
      RerankServiceConfig config, Supplier<io.grpc.Channel> encoderChannel) {
    return core(config, encoderChannel, CandidateTexts.none());
  }

  /** The core of a network server, candidates by id fetched through {@code indexDocuments}. */
  public static RerankCore core(
      RerankServiceConfig config,
      Supplier<io.grpc.Channel> encoderChannel,
      CandidateTexts indexDocuments) {
    return core(
        config.sources(),
        clientOf(encoderChannel),
        null,
        indexDocuments,
        config.maxPairsPerRequest(),
        config.maxBatchTokens(),
        config.models(),
        config.runtime());
  }

  private static RerankCore core(
      ModelSources sources,
      Supplier<EncoderClient> encoder,
      DenseEncoding dense,
      CandidateTexts indexDocuments,
      int maxPairs,
      int maxBatchTokens,
      ModelPolicy policy,
      OnnxModel.RuntimeOptions runtime) {
    runtime.requireAvailable();
    var registry =
        new dev.tenbin.rerank.cross.RerankerRegistry(
            sources.modelsDirectory(), sources.downloader(), runtime, maxBatchTokens, policy);
    dev.tenbin.rerank.bi.BiEncoderReranker[] biEncoder =
        new dev.tenbin.rerank.bi.BiEncoderReranker[1];
    return new RerankCore(
        registry,
        () -> {
          synchronized (biEncoder) {
            if (biEncoder[0] == null) {
              EncoderClient client = encoder.get();
              biEncoder[0] =
                  new dev.tenbin.rerank.bi.BiEncoderReranker(
                      client, dense != null ? dense : client.denseEncoding());
            }
            return biEncoder[0];
          }
        },
        maxPairs,
        indexDocuments);
  }

  /**
   * A started rerank service and the loading of the cross-encoders it preloads. The host owns the
   * core and the encoder (and index) channel: closing stops the server (in-flight calls get their
   * grace), then closes the cross-encoders, then the channels.
   */
  public record Running(
      GrpcServerHost host, RerankCore core, ManagedChannel encoderChannel, Preload preload)
      implements AutoCloseable {
    @Override
    public void close() {
      host.close();
    }
  }

  /** Starts the network server of {@code config}. */
  public static Running start(RerankServiceConfig config) {
    // Every option is checked before anything is created on disk.
    config.server().security().checkBind(config.server().host());
    ManagedChannel encoder =
        ClientChannels.open(
            config.encoderEndpoint(),
            config.encoderSecurity(),
            ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
    ManagedChannel index =
        config.index() == null
            ? null
            : ClientChannels.open(
                config.index(),
                ClientChannels.DEFAULT_MAX_INBOUND_MESSAGE_BYTES,
                IndexDocuments::collectionOf);
    RerankCore core = null;
    GrpcServerHost host = null;
    try {
      core =
          core(
              config,
              () -> encoder,
              index == null ? CandidateTexts.none() : IndexDocuments.through(() -> index));
      List<String> preload = config.hosting().preload();
      host =
          GrpcServerHost.start(
              config.server(), List.of(new RerankGrpcService(core)), preload.isEmpty());
      host.owning(() -> close(encoder)).owning(core);
      if (index != null) {
        host.owning(() -> close(index));
      }
      core.bindTo(host.registry());
      return new Running(
          host, core, encoder, Preload.start(host, "rerank-preload", preload, core::preload));
    } catch (RuntimeException e) {
      if (host != null) {
        host.close();
      }
      if (core != null) {
        core.close();
      }
      close(encoder);
      if (index != null) {
        close(index);
      }
      throw e;
    }
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
   * Starts the embedded rerank service under the in-process name {@code name} (every reranker
   * allowed, none unloaded), with bi-encoders reached through {@code encoderChannel}.
   */
  public static Embedded startInProcess(
      String name,
      Path models,
      java.nio.file.Path cache,
      java.util.function.Supplier<io.grpc.Channel> encoderChannel,
      int maxPairs,
      int maxBatchTokens,
      io.micrometer.core.instrument.MeterRegistry registry) {
    return startInProcess(
        name,
        models,
        cache,
        clientOf(encoderChannel),
        null,
        null,
        maxPairs,
        maxBatchTokens,
        ExecutionOptions.cpu(),
        registry);
  }

  /**
   * As above, with bi-encoders' dense vectors from {@code dense} (the embedding cache of the
   * process that embeds this service) instead of straight from the encoder (null: from the
   * encoder), and the cross-encoders on the provider and device of {@code execution} (the embedded
   * rerank service of {@code tenbin run/eval}); bi-encoders reach the encoder {@code encoder}
   * gives, and candidates given by id are fetched from the index {@code index} gives (null:
   * refused).
   */
  public static Embedded startInProcess(
      String name,
      Path models,
      java.nio.file.Path cache,
      Supplier<EncoderClient> encoder,
      DenseEncoding dense,
      Supplier<IndexClient> index,
      int maxPairs,
      int maxBatchTokens,
      ExecutionOptions execution,
      io.micrometer.core.instrument.MeterRegistry registry) {
    RerankCore core =
        core(
            ModelSources.embedded(models, cache),
            encoder,
            dense,
            IndexDocuments.fromClient(index),
            maxPairs,
            maxBatchTokens,
            ModelPolicy.allowAll(),
            execution.toRuntime(Runtime.getRuntime().availableProcessors()));
    try {
      return new Embedded(
          core,
          GrpcServerHost.startInProcess(name, registry, List.of(new RerankGrpcService(core))));
    } catch (RuntimeException e) {
      core.close();
      throw e;
    }
  }

  /** The encoder client over the channel {@code channel} gives, opened on first use. */
  private static Supplier<EncoderClient> clientOf(Supplier<io.grpc.Channel> channel) {
    return () -> EncoderClient.of(channel.get());
  }

  private static void close(ManagedChannel channel) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Serves until SIGTERM/SIGINT: the server stops first, then the core's cross-encoders, then the
   * channel. Exits with 1 when a preloaded cross-encoder could not be loaded.
   */
  @Override
  public Integer call() throws Exception {
    dev.tenbin.rpc.ProcessLogging.use(serverOptions.logFormat());
    RerankServiceConfig config = config();
    try (Running running = start(config)) {
      running
          .host()
          .serveUntilShutdown(
              "rerank-service",
              String.format(
                  "encoder %s, index %s",
                  config.encoderEndpoint(), config.index() == null ? "none" : config.index()));
      return running.preload().failed() ? 1 : 0;
    }
  }

  public static void main(String[] args) {
    ServerMain.exit("rerank-service", new RerankServer(), args);
  }
}
