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
import dev.tenbin.rpc.ServerOptions;
import io.grpc.BindableService;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
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
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(EncoderServer.class);

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
   * A started encoder service (network or in-process) and its core. The host owns the core: closing
   * stops the server (in-flight calls get their grace), then drains and closes the models.
   */
  public record Embedded(
      EncoderCore core, GrpcServerHost host, AtomicReference<RuntimeException> preloadFailure)
      implements AutoCloseable {
    public Embedded(EncoderCore core, GrpcServerHost host) {
      this(core, host, new AtomicReference<>());
    }

    /**
     * Loads and warms up {@code ids}, then says SERVING; a model that cannot be loaded stops the
     * server (its failure kept for the exit code).
     */
    void preload(List<String> ids) {
      try {
        long start = System.nanoTime();
        core.preload(ids);
        host.markServing();
        log.info("preloaded {} in {} ms; serving", ids, (System.nanoTime() - start) / 1_000_000);
      } catch (RuntimeException e) {
        preloadFailure.set(e);
        log.error("cannot preload {}: {}; stopping", ids, e.getMessage());
        host.close();
      }
    }

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
    GrpcServerHost host;
    try {
      host = GrpcServerHost.startInProcess(name, registry, services(core)).owning(core);
    } catch (RuntimeException e) {
      core.close();
      throw e;
    }
    core.bindTo(host.registry());
    return new Embedded(core, host);
  }

  /**
   * Starts the network server of {@code config} (and its HTTP endpoint when it names an HTTP port);
   * closing the result stops both and closes its core.
   */
  public static Embedded start(EncoderServiceConfig config) {
    // Every option is checked before anything is created on disk.
    config.server().security().checkBind(config.server().host());
    EncoderCore core = new EncoderCore(config);
    GrpcServerHost host;
    List<String> preload = config.hosting().preload();
    // SERVING (health, /readyz) only once every listener is up and every preloaded model warm.
    boolean http = config.httpPort() != EncoderServiceConfig.NO_HTTP;
    try {
      host =
          GrpcServerHost.start(config.server(), services(core), preload.isEmpty() && !http)
              .owning(core);
    } catch (RuntimeException e) {
      core.close();
      throw e;
    }
    if (http) {
      try {
        host.serveHttp(config.httpPort(), EmbeddingsHttpApi.routes(core));
      } catch (RuntimeException e) {
        host.close();
        throw e;
      }
    }
    core.bindTo(host.registry());
    Embedded embedded = new Embedded(core, host);
    if (preload.isEmpty()) {
      host.markServing();
    } else {
      Thread.ofPlatform().name("encoder-preload").start(() -> embedded.preload(preload));
    }
    return embedded;
  }

  /**
   * Serves until SIGTERM/SIGINT. The process's ordered shutdown stops the server first (in-flight
   * calls get the grace period), then drains the models, then frees native resources.
   */
  @Override
  public Integer call() throws Exception {
    dev.tenbin.rpc.ProcessLogging.use(serverOptions.logFormat());
    EncoderServiceConfig config = config();
    try (Embedded running = start(config)) {
      running.host().stopOnSignal("encoder-service");
      log.info(
          String.format(
              "encoder-service listening on %s:%d (metrics port %d, HTTP port %d, %s)",
              config.server().host(),
              running.host().port(),
              running.host().metricsPort(),
              running.host().httpPort(),
              config.runtime().provider() + " " + config.runtime().device()));
      running.host().blockUntilShutdown();
      if (running.preloadFailure().get() != null) {
        return 1;
      }
    }
    return 0;
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new EncoderServer());
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine.getErr().println("encoder-service: " + e.getMessage());
          return 2;
        });
    System.exit(cli.execute(args));
  }
}
