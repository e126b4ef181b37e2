package dev.tenbin.encoder;

import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.batching.TokenBudgetBatcher;
import dev.tenbin.model.card.CardCheck;
import dev.tenbin.model.card.DecoderSettings;
import dev.tenbin.model.card.ModelCard;
import dev.tenbin.model.card.ModelDigest;
import dev.tenbin.model.card.ModelFiles;
import dev.tenbin.model.card.OutputKind;
import dev.tenbin.model.card.PaddingSide;
import dev.tenbin.model.onnx.OnnxGraphCost;
import dev.tenbin.model.onnx.OnnxGraphFacts;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.model.tokenizer.TextTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * A model ready to serve: its card, tokenizer, ONNX session and the batcher of its output kind. All
 * pooling and scoring happens in FP32 whatever the model's own dtype (fp16 and bf16 outputs are
 * upcast by {@link OnnxModel}). The card is checked against the graph at load ({@link
 * CardCheck#againstGraph}): its dimension is the width the graph really outputs (filled in when the
 * card leaves it 0), so no output is ever cut to fit a card. The card's decoder settings choose the
 * padding side and the EOS token; pooling reads each input's own tokens whichever side its padding
 * is on. At load the model is also probed for batch invariance ({@link BatchInvariance}); a model
 * whose outputs depend on the other inputs of a pass is encoded one input per pass ({@link
 * EncodingPolicy#ONE_TEXT_PER_PASS}) by every caller, so a text's vector never depends on its
 * company.
 *
 * <p>Closing drains and joins the batchers first (waiting requests get UNAVAILABLE, the running
 * pass finishes), then frees the session and the tokenizer once no thread is inside them.
 */
public final class LoadedModel implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LoadedModel.class);

  private final ModelCard card;
  private final TextTokenizer tokenizer;
  private final OnnxModel onnx;
  private final byte[] tokenizerJson;
  private final String modelSha256;
  private final OnnxGraphCost graphCost;
  private final BatchInvariance batchInvariance;
  private final TokenBudgetBatcher<float[]> pooled;
  private final TokenBudgetBatcher<float[]> tokenVectors;
  private final TokenBudgetBatcher<SparseVector> sparse;

  LoadedModel(
      ModelFiles files,
      OnnxModel.RuntimeOptions runtime,
      BatchingLimits limits,
      IntConsumer passTokens) {
    ModelCard declared = files.card();
    this.tokenizerJson = files.tokenizerJson();
    this.modelSha256 = ModelDigest.of(files);
    DecoderSettings decoder = declared.decoderSettings();
    this.tokenizer =
        new TextTokenizer(files.tokenizerJson(), declared.maxLength(), decoder.eosToken());
    try {
      this.onnx = new OnnxModel("model " + declared.id(), files.onnx(), runtime);
    } catch (RuntimeException e) {
      tokenizer.close();
      throw e;
    }
    try {
      this.graphCost = OnnxGraphCost.read(files.onnx());
      this.card =
          CardCheck.againstGraph(
              declared,
              new CardCheck.Observed(
                  outputWidth(onnx, tokenizer),
                  OnnxGraphFacts.read(files.onnx()).positionEmbeddings()));
    } catch (RuntimeException e) {
      onnx.close();
      tokenizer.close();
      throw e;
    }
    boolean left = decoder.paddingSide() == PaddingSide.LEFT;
    Function<long[][], OnnxModel.Output> forward = ids -> onnx.run(ids, null, left);
    try {
      long probeStart = System.nanoTime();
      this.batchInvariance = BatchInvariance.probe(tokenizer, forward);
      LOG.debug(
          "model {}: batch-invariance probe in {} ms, policy {}: {}",
          card.id(),
          (System.nanoTime() - probeStart) / 1_000_000,
          batchInvariance.policy().label(),
          batchInvariance.compared());
    } catch (RuntimeException e) {
      onnx.close();
      tokenizer.close();
      throw e;
    }
    // A batch-dependent model runs one input per pass, unpadded: its vectors then do not depend on
    // what else is being encoded, whatever the requests, their batch sizes or the cache.
    if (batchInvariance.policy() == EncodingPolicy.ONE_TEXT_PER_PASS) {
      limits = limits.withMaxBatchSize(1);
    }
    // One batcher, one worker thread, for the one output kind the card serves.
    OutputKind kind = card.outputKind();
    this.pooled =
        kind != OutputKind.DENSE
            ? null
            : new TokenBudgetBatcher<>(
                card.id() + "-pooled",
                forward,
                (output, index, tokens) -> {
                  requireWidth(output);
                  return Pooler.pool(output, index, tokens, card.pooling());
                },
                limits,
                passTokens);
    this.tokenVectors =
        kind != OutputKind.MULTIVECTOR
            ? null
            : new TokenBudgetBatcher<>(
                card.id() + "-tokens",
                forward,
                (output, index, tokens) -> {
                  requireWidth(output);
                  return tokenMatrix(output, index, tokens);
                },
                limits,
                passTokens);
    this.sparse =
        kind != OutputKind.SPARSE
            ? null
            : new TokenBudgetBatcher<>(
                card.id() + "-sparse",
                forward,
                (output, index, tokens) -> {
                  requireWidth(output);
                  return maxPooledLogits(output, index, tokens);
                },
                limits,
                passTokens);
  }

  /**
   * The width the graph outputs: its declared last dimension, or, when that is symbolic, the width
   * of a one-input probe run.
   */
  private static int outputWidth(OnnxModel onnx, TextTokenizer tokenizer) {
    long declared = onnx.declaredOutputWidth();
    if (declared > 0) {
      return (int) declared;
    }
    return onnx.run(tokenizer.encode(List.of("probe")).ids()).width();
  }

  /** The card's dimension is the graph's width (checked at load); a pass that differs fails. */
  private void requireWidth(OnnxModel.Output output) {
    if (output.width() != card.dimension()) {
      throw new IllegalStateException(
          "model "
              + card.id()
              + " output "
              + output.width()
              + " values per token in this pass; its card, checked at load, says "
              + card.dimension());
    }
  }

  public ModelCard card() {
    return card;
  }

  /** SHA-256 of the model's graph, tokenizer and card ({@link ModelDigest}). */
  public String modelSha256() {
    return modelSha256;
  }

  public TextTokenizer tokenizer() {
    return tokenizer;
  }

  public byte[] tokenizerJson() {
    return tokenizerJson;
  }

  public OnnxModel onnx() {
    return onnx;
  }

  /** Whether the model is batch-invariant here, as probed at load, and the policy that follows. */
  public BatchInvariance batchInvariance() {
    return batchInvariance;
  }

  /** How this model's forward passes are formed ({@link BatchInvariance#policy()}). */
  public EncodingPolicy encodingPolicy() {
    return batchInvariance.policy();
  }

  /** The arithmetic the graph does per token, counted from its bytes at load. */
  public OnnxGraphCost graphCost() {
    return graphCost;
  }

  /** The model output's dtype, e.g. "FLOAT" or "FLOAT16". */
  public String dtype() {
    return onnx.outputType();
  }

  /** The batcher of pooled vectors (DENSE cards). */
  TokenBudgetBatcher<float[]> pooledBatcher() {
    return require(pooled);
  }

  /** The batcher of per-token vectors (MULTIVECTOR cards). */
  TokenBudgetBatcher<float[]> tokenBatcher() {
    return require(tokenVectors);
  }

  /** The batcher of learned sparse vectors (SPARSE cards). */
  TokenBudgetBatcher<SparseVector> sparseBatcher() {
    return require(sparse);
  }

  private <R> TokenBudgetBatcher<R> require(TokenBudgetBatcher<R> batcher) {
    if (batcher == null) {
      throw new IllegalStateException(
          "model " + card.id() + " serves " + card.outputKind() + " outputs only");
    }
    return batcher;
  }

  private TokenBudgetBatcher<?> batcher() {
    return pooled != null ? pooled : tokenVectors != null ? tokenVectors : sparse;
  }

  /** Inputs waiting in this model's queue. */
  int queuedInputs() {
    return batcher().queued();
  }

  /** Inputs accepted and not finished: being tokenized, waiting, or in the running pass. */
  int inFlightInputs() {
    TokenBudgetBatcher<?> batcher = batcher();
    return batcher.queued() + batcher.reserved() + batcher.running();
  }

  /** Per-token vectors of one input, padding removed, row-major. */
  static float[] tokenMatrix(OnnxModel.Output output, int index, int tokens) {
    int width = output.width();
    int offset = output.offset(index, 0);
    return Arrays.copyOfRange(output.values(), offset, offset + tokens * width);
  }

  /** log(1 + ReLU(logit)) max-pooled over the input's tokens; zero weights dropped. */
  static SparseVector maxPooledLogits(OnnxModel.Output output, int index, int tokens) {
    int vocabulary = output.width();
    float[] weights = new float[vocabulary];
    for (int t = 0; t < tokens; t++) {
      int offset = output.offset(index, t);
      for (int v = 0; v < vocabulary; v++) {
        float logit = output.values()[offset + v];
        if (logit > 0) {
          float weight = (float) Math.log1p(logit);
          if (weight > weights[v]) {
            weights[v] = weight;
          }
        }
      }
    }
    List<Integer> ids = new ArrayList<>();
    for (int v = 0; v < vocabulary; v++) {
      if (weights[v] > 0) {
        ids.add(v);
      }
    }
    int[] indices = new int[ids.size()];
    float[] values = new float[ids.size()];
    for (int i = 0; i < indices.length; i++) {
      indices[i] = ids.get(i);
      values[i] = weights[indices[i]];
    }
    return new SparseVector(indices, values);
  }

  /** Drains and joins the batchers, then frees the session and the tokenizer. */
  @Override
  public void close() {
    batcher().close();
    onnx.close();
    tokenizer.close();
  }
}
