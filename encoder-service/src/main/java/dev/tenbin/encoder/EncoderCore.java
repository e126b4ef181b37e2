package dev.tenbin.encoder;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.encoder.batching.TokenBudgetBatcher;
import dev.tenbin.encoder.model.HubDownloader;
import dev.tenbin.encoder.model.ModelCard;
import dev.tenbin.encoder.model.ModelRegistry;
import dev.tenbin.encoder.model.OutputKind;
import dev.tenbin.encoder.onnx.Pooler;
import dev.tenbin.encoder.onnx.TokenizedBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The encoder service's plain-Java core: validates inputs, loads models on first use, adds the
 * card's prompt, tokenizes, and serves dense, multi-vector and sparse outputs through the models'
 * token-budget batchers. The gRPC adapter only converts.
 */
public final class EncoderCore implements AutoCloseable {
  private final EncoderServiceConfig config;
  private final ModelRegistry registry;
  private final Map<String, LoadedModel> loaded = new ConcurrentHashMap<>();

  public EncoderCore(EncoderServiceConfig config) {
    config.runtime().requireAvailable();
    this.config = config;
    this.registry =
        new ModelRegistry(
            config.modelsDirectory(),
            new HubDownloader(config.hubEndpoint(), config.cacheDirectory(), System.getenv("HF_TOKEN")));
  }

  public EncoderServiceConfig config() {
    return config;
  }

  /** The loaded model, loading it on first use (NOT_FOUND naming {@code model_id} if unknown). */
  public LoadedModel model(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidInputException("model_id", "model_id is required");
    }
    LoadedModel model = loaded.get(id);
    if (model != null) {
      return model;
    }
    synchronized (this) {
      return loaded.computeIfAbsent(
          id, key -> new LoadedModel(registry.load(key), config.runtime(), config.batching()));
    }
  }

  public List<ModelCard> availableModels() {
    return registry.available();
  }

  /** Dense vectors, pooled and normalised per the card, truncated to {@code dimensions}. */
  public EncodeResult<float[]> encodeDense(
      String modelId, List<String> texts, boolean query, int dimensions, Cancellation cancellation) {
    LoadedModel model = model(modelId);
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

  /** Per-token vectors (padding removed), each normalised when the card says so. */
  public EncodeResult<float[]> encodeMultiVector(
      String modelId, List<String> texts, boolean query, Cancellation cancellation) {
    LoadedModel model = model(modelId);
    requireKind(model.card(), OutputKind.MULTIVECTOR);
    Run<float[]> run = run(model, model.tokenBatcher(), texts, query, cancellation);
    int width = model.card().dimension();
    List<float[]> matrices = new ArrayList<>();
    for (float[] matrix : run.served.results()) {
      if (model.card().normalize() && width > 0) {
        for (int offset = 0; offset < matrix.length; offset += width) {
          float[] row = java.util.Arrays.copyOfRange(matrix, offset, offset + width);
          Pooler.normalizeInPlace(row);
          System.arraycopy(row, 0, matrix, offset, width);
        }
      }
      matrices.add(matrix);
    }
    return run.result(matrices);
  }

  /** Learned sparse vectors; {@code topK} > 0 keeps the largest weights. */
  public EncodeResult<SparseVector> encodeSparse(
      String modelId, List<String> texts, boolean query, int topK, Cancellation cancellation) {
    if (topK < 0) {
      throw new InvalidInputException("top_k", "top_k must not be negative");
    }
    LoadedModel model = model(modelId);
    requireKind(model.card(), OutputKind.SPARSE);
    Run<SparseVector> run = run(model, model.sparseBatcher(), texts, query, cancellation);
    List<SparseVector> vectors = new ArrayList<>();
    for (SparseVector vector : run.served.results()) {
      vectors.add(topK == 0 ? vector : SparseVectors.topK(vector, topK));
    }
    return run.result(vectors);
  }

  /** Token ids of texts (prompt added), as the model sees them. */
  public TokenizedBatch tokenize(String modelId, List<String> texts, boolean query) {
    LoadedModel model = model(modelId);
    validate(texts);
    return model.tokenizer().encode(prompted(model.card(), texts, query));
  }

  private record Run<R>(TokenBudgetBatcher.Served<R> served, long tokenizeNanos, long tokens) {
    <T> EncodeResult<T> result(List<T> outputs) {
      var t = served.timings();
      return new EncodeResult<>(outputs, tokenizeNanos, t.queueNanos(), t.inferenceNanos(), tokens, t.paddedTokens(), t.batches());
    }
  }

  private <R> Run<R> run(
      LoadedModel model, TokenBudgetBatcher<R> batcher, List<String> texts, boolean query, Cancellation cancellation) {
    validate(texts);
    long start = System.nanoTime();
    TokenizedBatch tokens = model.tokenizer().encode(prompted(model.card(), texts, query));
    long tokenizeNanos = System.nanoTime() - start;
    cancellation.throwIfCancelled();
    return new Run<>(batcher.submit(tokens.ids(), cancellation), tokenizeNanos, tokens.tokens());
  }

  static List<String> prompted(ModelCard card, List<String> texts, boolean query) {
    String prompt = card.prompt(query);
    if (prompt.isEmpty()) {
      return texts;
    }
    List<String> out = new ArrayList<>(texts.size());
    for (String text : texts) {
      out.add(prompt + text);
    }
    return out;
  }

  private void validate(List<String> texts) {
    if (texts.isEmpty()) {
      throw new InvalidInputException("texts", "at least one text is required");
    }
    if (texts.size() > config.maxInputsPerRequest()) {
      throw new InvalidInputException(
          "texts", "at most " + config.maxInputsPerRequest() + " texts per request, got " + texts.size());
    }
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i);
      if (text == null || text.isBlank()) {
        throw new InvalidInputException("texts[" + i + "]", "text " + i + " is empty or whitespace only");
      }
      if (text.length() > config.maxTextChars()) {
        throw new InvalidInputException(
            "texts[" + i + "]",
            "text " + i + " has " + text.length() + " characters; the limit is " + config.maxTextChars());
      }
    }
  }

  private static void requireKind(ModelCard card, OutputKind kind) {
    if (card.outputKind() != kind) {
      throw new InvalidInputException(
          "model_id", "model " + card.id() + " produces " + card.outputKind() + " outputs, not " + kind);
    }
  }

  @Override
  public void close() {
    loaded.values().forEach(LoadedModel::close);
    loaded.clear();
  }
}
