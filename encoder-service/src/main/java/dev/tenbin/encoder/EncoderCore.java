package dev.tenbin.encoder;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.OrderedShutdown;
import dev.tenbin.encoder.batching.TokenBudgetBatcher;
import dev.tenbin.encoder.config.EncoderServiceConfig;
import dev.tenbin.encoder.registry.ModelRegistry;
import dev.tenbin.model.ModelCache;
import dev.tenbin.model.ModelInfoCache;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.ModelFiles;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.model.tokenizer.TokenizedBatch;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The encoder service's plain-Java core: validates inputs, loads allowed models on first use
 * (unloading idle ones when the policy says so), adds the card's prompt, tokenizes, and serves
 * dense, multi-vector and sparse outputs through the models' token-budget batchers. The gRPC
 * adapter only converts.
 *
 * <p>A request holds its model for the whole call and reserves its places in the model's queue
 * before it is tokenized, so tokenization counts against the queue bound; tokenizing stops between
 * texts when the caller goes. The core is registered with the process's {@link OrderedShutdown}: on
 * SIGTERM or {@code System.exit} its models are drained and closed before the process ends.
 *
 * <p>Meters ({@link #bindTo}): {@code tenbin.encoder.models.loaded}, and per model (tag {@code
 * model}) {@code tenbin.encoder.queue.inputs}, {@code tenbin.encoder.inflight.inputs} and the
 * distribution {@code tenbin.encoder.batch.tokens} (padded tokens per forward pass).
 */
public final class EncoderCore implements AutoCloseable, MeterBinder {
  /** Bucket bounds of {@code tenbin.encoder.batch.tokens}: 64, 128, ..., 262144 padded tokens. */
  private static final double[] BATCH_TOKEN_BUCKETS =
      java.util.stream.IntStream.rangeClosed(6, 18).mapToDouble(p -> Math.pow(2, p)).toArray();

  /**
   * What GetModelInfo reports: the card, the output's dtype, the SHA-256 of the model's files
   * ({@link dev.tenbin.model.card.ModelDigest}) and the batch-invariance probe of its load, with
   * the encoding policy that follows ({@link BatchInvariance}).
   */
  public record ModelInfo(
      ModelCard card, String dtype, String modelSha256, BatchInvariance batchInvariance) {
    static ModelInfo of(LoadedModel model) {
      return new ModelInfo(
          model.card(), model.dtype(), model.modelSha256(), model.batchInvariance());
    }
  }

  private final EncoderServiceConfig config;
  private final ModelRegistry registry;
  private final ModelCache<LoadedModel> models;

  /** Preloaded models, held for good: never unloaded for idleness. */
  private final List<ModelCache<LoadedModel>.Handle> pinned = new java.util.ArrayList<>();

  private final Map<String, ModelInfo> infos = new ConcurrentHashMap<>();
  private final ModelInfoCache<ModelInfo> rememberedInfos;
  private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
  private final Set<String> meteredModels = ConcurrentHashMap.newKeySet();
  private final OrderedShutdown.Registration shutdown;

  public EncoderCore(EncoderServiceConfig config) {
    config.runtime().requireAvailable();
    this.config = config;
    this.registry = new ModelRegistry(config.modelsDirectory(), config.sources().downloader());
    this.rememberedInfos =
        new ModelInfoCache<>(
            config.cacheDirectory(),
            // The batch-invariance probe depends on the execution provider: answers remembered
            // on one are not given on another.
            "encoder-" + config.runtime().provider().toLowerCase(java.util.Locale.ROOT),
            ModelInfo.class,
            info ->
                info.card() != null
                    && info.modelSha256() != null
                    && !info.modelSha256().isEmpty()
                    && info.batchInvariance() != null
                    && info.batchInvariance().policy() != null);
    this.models =
        new ModelCache<>(
            "encoder",
            this::load,
            config.models().idleUnload(),
            new ModelCache.Listener<>() {
              @Override
              public void loaded(String id, LoadedModel model) {
                infos.put(id, ModelInfo.of(model));
              }

              @Override
              public void unloaded(String id, LoadedModel model) {}
            });
    this.shutdown = OrderedShutdown.register(OrderedShutdown.Stage.WORKERS, "encoder core", this);
  }

  private LoadedModel load(String id) {
    // The stamp is taken before the files are read: files replaced while loading leave an entry
    // that no later stamp matches (so the model is loaded again), never a stale answer.
    Optional<String> stamp = registry.stamp(id);
    // Resolved before any meter: an unknown or refused id fails here and creates no series.
    ModelFiles files = registry.load(id);
    meterModel(id);
    DistributionSummary batchTokens =
        DistributionSummary.builder("tenbin.encoder.batch.tokens")
            .description("Padded tokens per forward pass")
            .baseUnit("tokens")
            .tag("model", id)
            // 13 buckets (powers of two, 64 to 256Ki tokens) rather than Micrometer's 276-bucket
            // percentile histogram: the series budget of docs/services.md#metrics.
            .serviceLevelObjectives(BATCH_TOKEN_BUCKETS)
            .register(meters);
    LoadedModel model =
        new LoadedModel(files, config.runtime(), config.batching(), batchTokens::record);
    rememberedInfos.remember(id, stamp, ModelInfo.of(model));
    return model;
  }

  /** Registers the per-model gauges once per model id; they read 0 while the model is unloaded. */
  private void meterModel(String id) {
    if (!meteredModels.add(id)) {
      return;
    }
    gauge(
        "tenbin.encoder.queue.inputs",
        "Inputs waiting in the model's queue",
        id,
        LoadedModel::queuedInputs);
    gauge(
        "tenbin.encoder.inflight.inputs",
        "Inputs accepted and not finished (tokenizing, queued or running)",
        id,
        LoadedModel::inFlightInputs);
  }

  private void gauge(
      String name, String description, String id, ToDoubleFunction<LoadedModel> value) {
    Gauge.builder(
            name,
            models,
            cache -> {
              LoadedModel model = cache.loadedOrNull(id);
              return model == null ? 0 : value.applyAsDouble(model);
            })
        .description(description)
        .baseUnit("inputs")
        .tag("model", id)
        .register(meters);
  }

  /** Publishes this core's meters to {@code registry} (call once the server's host has started). */
  @Override
  public void bindTo(MeterRegistry registry) {
    // The registry joins the composite before the first meter is registered on it: meters (and
    // their recordings) that exist before a registry joins would not all reach it, and Micrometer
    // warns about that on stderr.
    meters.add(registry);
    if (meters.find("tenbin.encoder.models.loaded").gauge() == null) {
      Gauge.builder("tenbin.encoder.models.loaded", models, cache -> cache.loadedIds().size())
          .description("Models loaded in the encoder now")
          .register(meters);
    }
  }

  public EncoderServiceConfig config() {
    return config;
  }

  /**
   * The model, loaded if needed, held until the handle is closed (an idle model is unloaded only
   * when no handle is held). PERMISSION_DENIED naming {@code model_id} when the policy does not
   * allow it, NOT_FOUND when it is unknown.
   */
  public ModelCache<LoadedModel>.Handle acquire(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidInputException("model_id", "model_id is required");
    }
    config.models().check(ModelRegistry.source(id), id, "model_id");
    return models.acquire(ModelRegistry.canonicalId(id));
  }

  /**
   * The loaded model, loading it on first use, without holding it. For embedded use (tools such as
   * {@code tenbin light build} whose core never unloads); a served call holds {@link #acquire}.
   */
  public LoadedModel model(String id) {
    try (var handle = acquire(id)) {
      return handle.model();
    }
  }

  /**
   * The card and dtype of a model: as loaded, or as remembered in the cache folder from an earlier
   * load of the very same files ({@link ModelInfoCache}); else it loads the model once, without
   * keeping it held.
   */
  public ModelInfo info(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidInputException("model_id", "model_id is required");
    }
    config.models().check(ModelRegistry.source(id), id, "model_id");
    String canonical = ModelRegistry.canonicalId(id);
    ModelInfo known = infos.get(canonical);
    if (known != null) {
      return known;
    }
    Optional<ModelInfo> remembered = rememberedInfos.find(canonical, registry.stamp(canonical));
    if (remembered.isPresent()) {
      return remembered.get();
    }
    try (var handle = acquire(id)) {
      return ModelInfo.of(handle.model());
    }
  }

  /** Ids of the models loaded now. */
  public Set<String> loadedModels() {
    return models.loadedIds();
  }

  /**
   * Unloads the models idle for the policy's idle time now (the background unloader does it too).
   */
  public List<String> unloadIdleModels() {
    return models.unloadIdle();
  }

  /**
   * Cards of the built-in and local models this service may load: as checked at load for a model
   * loaded once (a dimension left 0 is then filled in), as written otherwise.
   */
  public List<ModelCard> availableModels() {
    List<ModelCard> allowed = new ArrayList<>();
    for (ModelCard card : registry.available()) {
      if (config.models().allows(ModelRegistry.source(card.id()), card.id())) {
        ModelInfo loaded = infos.get(card.id());
        allowed.add(loaded == null ? card : loaded.card());
      }
    }
    return allowed;
  }

  /** Dense vectors, pooled and normalised per the card, truncated to {@code dimensions}. */
  public EncodeResult<float[]> encodeDense(
      String modelId,
      List<String> texts,
      boolean query,
      int dimensions,
      Cancellation cancellation) {
    validate(texts);
    try (var handle = acquire(modelId)) {
      LoadedModel model = handle.model();
      ModelCard card = model.card();
      requireKind(card, OutputKind.DENSE);
      int dims = card.resolveDimensions(dimensions, "dimensions");
      Run<float[]> run = run(model, model.pooledBatcher(), texts, query, cancellation);
      List<float[]> vectors = new ArrayList<>(run.served.results().size());
      for (float[] pooled : run.served.results()) {
        vectors.add(Pooler.finish(pooled, dims, card.normalize()));
      }
      return run.result(vectors);
    }
  }

  /** Per-token vectors (padding removed), each normalised when the card says so. */
  public EncodeResult<float[]> encodeMultiVector(
      String modelId, List<String> texts, boolean query, Cancellation cancellation) {
    validate(texts);
    try (var handle = acquire(modelId)) {
      LoadedModel model = handle.model();
      requireKind(model.card(), OutputKind.MULTIVECTOR);
      Run<float[]> run = run(model, model.tokenBatcher(), texts, query, cancellation);
      int width = model.card().dimension();
      List<float[]> matrices = new ArrayList<>();
      for (float[] matrix : run.served.results()) {
        if (model.card().normalize() && width > 0) {
          for (int offset = 0; offset < matrix.length; offset += width) {
            float[] row = Arrays.copyOfRange(matrix, offset, offset + width);
            Pooler.normalizeInPlace(row);
            System.arraycopy(row, 0, matrix, offset, width);
          }
        }
        matrices.add(matrix);
      }
      return run.result(matrices);
    }
  }

  /** Learned sparse vectors; {@code topK} > 0 keeps the largest weights. */
  public EncodeResult<SparseVector> encodeSparse(
      String modelId, List<String> texts, boolean query, int topK, Cancellation cancellation) {
    if (topK < 0) {
      throw new InvalidInputException("top_k", "top_k must not be negative");
    }
    validate(texts);
    try (var handle = acquire(modelId)) {
      LoadedModel model = handle.model();
      requireKind(model.card(), OutputKind.SPARSE);
      Run<SparseVector> run = run(model, model.sparseBatcher(), texts, query, cancellation);
      List<SparseVector> vectors = new ArrayList<>();
      for (SparseVector vector : run.served.results()) {
        vectors.add(topK == 0 ? vector : SparseVectors.topK(vector, topK));
      }
      return run.result(vectors);
    }
  }

  /** Token ids of texts (prompt added), as the model sees them. */
  public TokenizedBatch tokenize(String modelId, List<String> texts, boolean query) {
    return tokenize(modelId, texts, query, Cancellation.NEVER);
  }

  /** Token ids of texts (prompt added), as the model sees them; stops when the caller goes. */
  public TokenizedBatch tokenize(
      String modelId, List<String> texts, boolean query, Cancellation cancellation) {
    validate(texts);
    try (var handle = acquire(modelId)) {
      LoadedModel model = handle.model();
      return model.tokenizer().encode(prompted(model.card(), texts, query), cancellation);
    }
  }

  /** Token strings of texts (prompt added), for the Tokenize RPC. */
  public List<String[]> tokenStrings(
      String modelId, List<String> texts, boolean query, Cancellation cancellation) {
    validate(texts);
    try (var handle = acquire(modelId)) {
      LoadedModel model = handle.model();
      List<String[]> tokens = new ArrayList<>(texts.size());
      for (String text : prompted(model.card(), texts, query)) {
        cancellation.throwIfCancelled();
        tokens.add(model.tokenizer().tokens(text));
      }
      return tokens;
    }
  }

  private record Run<R>(TokenBudgetBatcher.Served<R> served, long tokenizeNanos, long tokens) {
    <T> EncodeResult<T> result(List<T> outputs) {
      var t = served.timings();
      return new EncodeResult<>(
          outputs,
          tokenizeNanos,
          t.queueNanos(),
          t.inferenceNanos(),
          tokens,
          t.paddedTokens(),
          t.batches());
    }
  }

  /**
   * Reserves the request's places (refused when the call's wait so far plus the work ahead would
   * pass the queue-wait bound), tokenizes (cancellable between texts), then queues and waits.
   */
  private <R> Run<R> run(
      LoadedModel model,
      TokenBudgetBatcher<R> batcher,
      List<String> texts,
      boolean query,
      Cancellation cancellation) {
    try (TokenBudgetBatcher<R>.Reservation places =
        batcher.reserve(texts.size(), cancellation.waitedNanos())) {
      long start = System.nanoTime();
      TokenizedBatch tokens =
          model.tokenizer().encode(prompted(model.card(), texts, query), cancellation);
      long tokenizeNanos = System.nanoTime() - start;
      cancellation.throwIfCancelled();
      return new Run<>(
          batcher.submit(places, tokens.ids(), cancellation), tokenizeNanos, tokens.tokens());
    }
  }

  /** The texts behind the card's prefix prompt or inside its instruction template. */
  static List<String> prompted(ModelCard card, List<String> texts, boolean query) {
    if (card.prompt(query).isEmpty() && card.decoderSettings().template(query).isEmpty()) {
      return texts;
    }
    List<String> out = new ArrayList<>(texts.size());
    for (String text : texts) {
      out.add(card.promptedText(text, query));
    }
    return out;
  }

  private void validate(List<String> texts) {
    if (texts.isEmpty()) {
      throw new InvalidInputException("texts", "at least one text is required");
    }
    if (texts.size() > config.maxInputsPerRequest()) {
      throw InvalidInputException.tooLarge(
          "texts",
          "at most " + config.maxInputsPerRequest() + " texts per request, got " + texts.size());
    }
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i);
      if (text == null || text.isBlank()) {
        throw new InvalidInputException(
            "texts[" + i + "]", "text " + i + " is empty or whitespace only");
      }
      if (text.length() > config.maxTextChars()) {
        throw InvalidInputException.tooLarge(
            "texts[" + i + "]",
            "text "
                + i
                + " has "
                + text.length()
                + " characters; the limit is "
                + config.maxTextChars());
      }
    }
    checkRequestChars(texts);
  }

  /** INVALID_ARGUMENT naming {@code texts} when the texts together exceed the per-request cap. */
  public void checkRequestChars(List<String> texts) {
    long total = 0;
    for (String text : texts) {
      total += text == null ? 0 : text.length();
    }
    if (total > config.maxRequestChars()) {
      throw InvalidInputException.tooLarge(
          "texts",
          "the texts have "
              + total
              + " characters together; the limit is "
              + config.maxRequestChars()
              + " per request: send them in several requests");
    }
  }

  private static void requireKind(ModelCard card, OutputKind kind) {
    if (card.outputKind() != kind) {
      throw new InvalidInputException(
          "model_id",
          "model " + card.id() + " produces " + card.outputKind() + " outputs, not " + kind);
    }
  }

  /**
   * Loads {@code ids} now and keeps them loaded (never unloaded for idleness), each warmed up with
   * one encode of a query and a document so that the first real request is not the slow one.
   *
   * @throws dev.tenbin.core.TenbinException naming {@code preload} for a model that may not or
   *     cannot be loaded
   */
  public void preload(List<String> ids) {
    for (String id : ids) {
      ModelCache<LoadedModel>.Handle handle;
      try {
        handle = models.acquire(id);
      } catch (dev.tenbin.core.TenbinException e) {
        throw e.within("preload");
      }
      synchronized (pinned) {
        pinned.add(handle);
      }
      List<String> text = List.of("Tenbin warms this model up before its first request.");
      Cancellation never = Cancellation.NEVER;
      for (boolean query : new boolean[] {true, false}) {
        switch (handle.model().card().outputKind()) {
          case DENSE -> encodeDense(id, text, query, 0, never);
          case SPARSE -> encodeSparse(id, text, query, 0, never);
          case MULTIVECTOR -> encodeMultiVector(id, text, query, never);
        }
      }
    }
  }

  /**
   * Closes every model: waiting requests get UNAVAILABLE, running passes finish, batcher threads
   * are joined, sessions and tokenizers are freed once no thread is inside them.
   */
  @Override
  public void close() {
    synchronized (pinned) {
      pinned.forEach(ModelCache.Handle::close);
      pinned.clear();
    }
    models.close();
    shutdown.close();
  }
}
