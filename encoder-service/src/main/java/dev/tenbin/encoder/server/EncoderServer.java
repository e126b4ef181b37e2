package dev.tenbin.encoder.server;

import dev.tenbin.encoder.EncoderCore;
import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.grpc.EncoderGrpcService;
import dev.tenbin.encoder.http.EmbeddingsHttpApi;
import dev.tenbin.encoder.light.LightQueryEncoder;
import dev.tenbin.model.ModelHosting;
import dev.tenbin.model.ModelPolicy;
import dev.tenbin.model.ModelSourceOptions;
import dev.tenbin.model.onnx.ExecutionOptions;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.Preload;
import dev.tenbin.rpc.ServerMain;
import dev.tenbin.rpc.ServerOptions;
import io.grpc.BindableService;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs the encoder service: {@code tenbin.encoder.v1} over gRPC, and with {@code --http-port} the
 * OpenAI-compatible {@code POST /v1/embeddings} and {@code GET /health} over HTTP, served by the
 * same core under the same tokens, limits and TLS.
 */
@Command(
    name = "encoder-service",
    mixinStandardHelpOptions = true,
    description =
        "Serves dense, sparse and multi-vector encoders and the LightRetriever lookup over gRPC"
            + " (and dense embeddings over HTTP with --http-port).")
public final class EncoderServer implements Callable<Integer> {
  @Mixin ServerOptions serverOptions = new ServerOptions();

  /** Where models come from (--models-dir, --cache-dir, --hub-endpoint). */
  @Mixin ModelSourceOptions modelSources = new ModelSourceOptions();

  @Option(
      names = "--intra-op-threads",
      defaultValue = "${env:TENBIN_INTRA_OP_THREADS:-0}",
      description =
          "ONNX Runtime intra-op threads per session; 0 = one per core (env TENBIN_INTRA_OP_THREADS).")
  int intraOpThreads;

  /** --execution-provider, --device-id, --gpu-mem-limit. */
  @Mixin ExecutionOptions execution = new ExecutionOptions();

  @Option(
      names = "--max-batch-tokens",
      defaultValue = "${env:TENBIN_MAX_BATCH_TOKENS:-0}",
      description =
          "Padded tokens per forward pass; 0 = the execution provider's: 512 on CPU, 16384 on"
              + " CUDA (env TENBIN_MAX_BATCH_TOKENS; default ${DEFAULT-VALUE}).")
  int maxBatchTokens;

  @Option(
      names = "--max-batch-attention",
      defaultValue = "${env:TENBIN_MAX_BATCH_ATTENTION:-0}",
      description =
          "Attention cells (inputs × longest input²) per forward pass, bounding attention memory for long inputs; 0 = max-batch-tokens × 512 (env TENBIN_MAX_BATCH_ATTENTION; default ${DEFAULT-VALUE}).")
  long maxBatchAttention;

  @Option(
      names = "--max-batch-size",
      defaultValue = "256",
      description = "Inputs per forward pass at most (default ${DEFAULT-VALUE}).")
  int maxBatchSize;

  @Option(
      names = "--max-queued-inputs",
      defaultValue = "${env:TENBIN_MAX_QUEUED_INPUTS:-100000}",
      description =
          "Inputs waiting at most; beyond, requests get RESOURCE_EXHAUSTED (env TENBIN_MAX_QUEUED_INPUTS; default ${DEFAULT-VALUE}).")
  int maxQueued;

  @Option(
      names = "--max-queue-delay-ms",
      defaultValue = "2",
      description =
          "How long the first waiting input may wait for others to fill its batch (default ${DEFAULT-VALUE}).")
  long maxQueueDelayMs;

  @Option(
      names = "--max-inputs-per-request",
      defaultValue = "10000",
      description =
          "Texts per request at most; more is INVALID_ARGUMENT (default ${DEFAULT-VALUE}).")
  int maxInputs;

  @Option(
      names = "--max-text-chars",
      defaultValue = "100000",
      description =
          "Characters per text at most; longer is INVALID_ARGUMENT (default ${DEFAULT-VALUE}).")
  int maxTextChars;

  @Option(
      names = "--max-request-chars",
      defaultValue = "${env:TENBIN_MAX_REQUEST_CHARS:-10000000}",
      description =
          "Characters per request at most, all texts together (a streaming request counts whole); more is"
              + " INVALID_ARGUMENT, so a request too big to tokenize in seconds is refused, not queued"
              + " (env TENBIN_MAX_REQUEST_CHARS; default ${DEFAULT-VALUE}).")
  long maxRequestChars;

  @Option(
      names = "--max-queue-wait-seconds",
      defaultValue = "${env:TENBIN_MAX_QUEUE_WAIT_SECONDS:-10}",
      description =
          "Refuse a request (RESOURCE_EXHAUSTED with a retry delay) when its wait before its work would pass"
              + " this: the time since its call arrived (waiting for a handler thread included) plus the inputs"
              + " ahead of it at the throughput measured so far; 0 = no bound (env TENBIN_MAX_QUEUE_WAIT_SECONDS;"
              + " default ${DEFAULT-VALUE}).")
  long maxQueueWaitSeconds;

  @Option(
      names = "--allow-models",
      split = ",",
      paramLabel = "PATTERN",
      defaultValue = "${env:TENBIN_ALLOW_MODELS}",
      description = {
        "Which models may be loaded; repeatable or comma-separated (env TENBIN_ALLOW_MODELS). A glob"
            + " (* any characters, ? one; case-insensitive) over the model id of built-in and local models"
            + " ('bge-*', 'e5-small-v2'), or SOURCE:ID with SOURCE builtin, local (a folder in --models-dir) or hub"
            + " ('builtin:*', 'local:my-model', 'hub:BAAI/*' for any BAAI repository at any revision, 'hub:*').",
        "Hub downloads are off unless a hub: pattern allows them. Default: builtin:*,local:*. A model not allowed"
            + " is PERMISSION_DENIED naming model_id."
      })
  List<String> allowModels;

  @Option(
      names = "--preload",
      split = ",",
      paramLabel = "MODEL",
      defaultValue = "${env:TENBIN_PRELOAD}",
      description =
          "Load these models at start (repeatable or comma-separated; env TENBIN_PRELOAD), each"
              + " warmed up with one encode; health (gRPC and GET /readyz) says NOT_SERVING until"
              + " they are loaded, and they are never unloaded for idleness. A model that cannot be"
              + " loaded stops the server.")
  List<String> preload;

  @Option(
      names = "--model-idle-seconds",
      defaultValue = "${env:TENBIN_MODEL_IDLE_SECONDS:-600}",
      description =
          "Unload a model no call has used for this long, freeing its memory and threads; 0 = never"
              + " (env TENBIN_MODEL_IDLE_SECONDS; default ${DEFAULT-VALUE}).")
  long modelIdleSeconds;

  @Option(
      names = "--http-port",
      defaultValue = "${env:TENBIN_HTTP_PORT:--1}",
      description =
          "Also serve POST /v1/embeddings (OpenAI/TEI-compatible) and GET /health over HTTP on this"
              + " port of the same address, with the gRPC side's tokens, limits and TLS (HTTPS when"
              + " --tls-cert is given); 0 picks a free port, -1 serves none (env TENBIN_HTTP_PORT;"
              + " default ${DEFAULT-VALUE}).")
  int httpPort;

  public EncoderServiceConfig config() {
    if (intraOpThreads < 0) {
      throw new IllegalArgumentException(
          "--intra-op-threads must be 0 (one per core) or positive, got " + intraOpThreads);
    }
    int threads = intraOpThreads > 0 ? intraOpThreads : Runtime.getRuntime().availableProcessors();
    if (maxQueueWaitSeconds < 0) {
      throw new IllegalArgumentException("--max-queue-wait-seconds must not be negative");
    }
    return new EncoderServiceConfig(
        serverOptions.toSettings(EncoderServiceConfig.DEFAULT_PORT),
        new ModelHosting(
            modelSources.toSources(),
            ModelPolicy.of(allowModels, modelIdleSeconds),
            execution.toRuntime(threads),
            preload),
        new BatchingLimits(
            maxBatchTokens,
            maxBatchSize,
            maxQueued,
            Duration.ofMillis(maxQueueDelayMs),
            Duration.ofSeconds(maxQueueWaitSeconds),
            maxBatchAttention),
        maxInputs,
        maxTextChars,
        maxRequestChars,
        httpPort);
  }

  public static List<BindableService> services(EncoderCore core) {
    return List.of(
        new EncoderGrpcService(core, new LightQueryEncoder(core, core.config().cacheDirectory())));
  }

  /**
   * A started encoder service (network or in-process), its core, and the loading of the models it
   * preloads. The host owns the core: closing stops the server (in-flight calls get their grace),
   * then drains and closes the models.
   */
  public record Embedded(EncoderCore core, GrpcServerHost host, Preload preload)
      implements AutoCloseable {
    @Override
    public void close() {
      host.close();
      core.close();
    }
  }

  /**
   * Starts an in-process server (gRPC only: a config naming an HTTP port is refused, since only a
   * network server has an address to serve HTTP on).
   */
  public static Embedded startInProcess(
      String name, EncoderServiceConfig config, MeterRegistry registry) {
    if (config.httpPort() != EncoderServiceConfig.NO_HTTP) {
      throw new IllegalArgumentException(
          "--http-port needs a network server; an in-process encoder serves gRPC only");
    }
    EncoderCore core = new EncoderCore(config);
    GrpcServerHost host =
        GrpcServerHost.startInProcessOwning(name, registry, core, EncoderServer::services);
    core.bindTo(host.registry());
    return new Embedded(core, host, Preload.none());
  }

  /**
   * Starts the network server of {@code config} (and its HTTP endpoint when it names an HTTP port);
   * closing the result stops both and closes its core.
   */
  public static Embedded start(EncoderServiceConfig config) {
    // Every option is checked before anything is created on disk.
    config.server().security().checkBind(config.server().host());
    EncoderCore core = new EncoderCore(config);
    List<String> preload = config.hosting().preload();
    // SERVING (health, /readyz) only once every listener is up and every preloaded model warm.
    boolean http = config.httpPort() != EncoderServiceConfig.NO_HTTP;
    GrpcServerHost host =
        GrpcServerHost.startOwning(
            config.server(), core, EncoderServer::services, preload.isEmpty() && !http);
    if (http) {
      try {
        host.serveHttp(config.httpPort(), EmbeddingsHttpApi.routes(core));
      } catch (RuntimeException e) {
        host.close();
        throw e;
      }
    }
    core.bindTo(host.registry());
    return new Embedded(core, host, Preload.start(host, "encoder-preload", preload, core::preload));
  }

  /**
   * Serves until SIGTERM/SIGINT. The process's ordered shutdown stops the server first (in-flight
   * calls get the grace period), then drains the models, then frees native resources. Exits with 1
   * when a preloaded model could not be loaded.
   */
  @Override
  public Integer call() throws Exception {
    dev.tenbin.rpc.ProcessLogging.use(serverOptions.logFormat());
    EncoderServiceConfig config = config();
    try (Embedded running = start(config)) {
      running
          .host()
          .serveUntilShutdown(
              "encoder-service",
              String.format(
                  "HTTP port %d, %s %s",
                  running.host().httpPort(),
                  config.runtime().provider(),
                  config.runtime().device()));
      return running.preload().failed() ? 1 : 0;
    }
  }

  public static void main(String[] args) {
    ServerMain.exit("encoder-service", new EncoderServer(), args);
  }
}
