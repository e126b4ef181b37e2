package dev.tenbin.encoder;

import dev.tenbin.encoder.batching.BatchingLimits;
import dev.tenbin.encoder.batching.TokenBudgetBatcher;
import dev.tenbin.encoder.model.ModelCard;
import dev.tenbin.encoder.model.ModelFiles;
import dev.tenbin.encoder.onnx.OnnxModel;
import dev.tenbin.encoder.onnx.Pooler;
import dev.tenbin.encoder.onnx.TextTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * A model ready to serve: its card, tokenizer, ONNX session and one batcher per output kind. All
 * pooling and scoring happens in FP32 whatever the model's own dtype.
 *
 * <p>Closing drains and joins the batchers first (waiting requests get UNAVAILABLE, the running
 * pass finishes), then frees the session and the tokenizer once no thread is inside them.
 */
public final class LoadedModel implements AutoCloseable {
  private final ModelCard card;
  private final TextTokenizer tokenizer;
  private final OnnxModel onnx;
  private final byte[] tokenizerJson;
  private final TokenBudgetBatcher<float[]> pooled;
  private final TokenBudgetBatcher<float[]> tokenVectors;
  private final TokenBudgetBatcher<SparseVector> sparse;

  LoadedModel(ModelFiles files, OnnxModel.RuntimeOptions runtime, BatchingLimits limits, IntConsumer passTokens) {
    this.card = files.card();
    this.tokenizerJson = files.tokenizerJson();
    this.tokenizer = new TextTokenizer(files.tokenizerJson(), card.maxLength());
    try {
      this.onnx = new OnnxModel("model " + card.id(), files.onnx(), runtime);
    } catch (RuntimeException e) {
      tokenizer.close();
      throw e;
    }
    this.pooled =
        new TokenBudgetBatcher<>(
            card.id() + "-pooled", onnx::run,
            (output, index, tokens) -> Pooler.pool(output, index, tokens, card.pooling()), limits, passTokens);
    this.tokenVectors =
        new TokenBudgetBatcher<>(card.id() + "-tokens", onnx::run, LoadedModel::tokenMatrix, limits, passTokens);
    this.sparse =
        new TokenBudgetBatcher<>(card.id() + "-sparse", onnx::run, LoadedModel::maxPooledLogits, limits, passTokens);
  }

  public ModelCard card() {
    return card;
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

  /** The model output's dtype, e.g. "FLOAT" or "FLOAT16". */
  public String dtype() {
    return onnx.outputType();
  }

  TokenBudgetBatcher<float[]> pooledBatcher() {
    return pooled;
  }

  TokenBudgetBatcher<float[]> tokenBatcher() {
    return tokenVectors;
  }

  TokenBudgetBatcher<SparseVector> sparseBatcher() {
    return sparse;
  }

  /** Inputs waiting in this model's queues. */
  int queuedInputs() {
    return pooled.queued() + tokenVectors.queued() + sparse.queued();
  }

  /** Inputs accepted and not finished: being tokenized, waiting, or in the running pass. */
  int inFlightInputs() {
    return pooled.queued() + pooled.reserved() + pooled.running()
        + tokenVectors.queued() + tokenVectors.reserved() + tokenVectors.running()
        + sparse.queued() + sparse.reserved() + sparse.running();
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
    pooled.close();
    tokenVectors.close();
    sparse.close();
    onnx.close();
    tokenizer.close();
  }
}
