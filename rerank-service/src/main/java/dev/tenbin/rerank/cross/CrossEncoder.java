package dev.tenbin.rerank.cross;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.model.card.ModelDigest;
import dev.tenbin.model.card.ModelFiles;
import dev.tenbin.model.onnx.OnnxModel;
import dev.tenbin.model.tokenizer.TextTokenizer;
import java.util.ArrayList;
import java.util.List;

/**
 * A cross-encoder ONNX model scoring (query, document) pairs: token type ids when the graph takes
 * them, passes of at most {@code maxBatchTokens} padded tokens (pairs sorted by length), and one of
 * three score heads. By default logits are upcast to FP32 before the score function (high-precision
 * scoring); {@link ScorePrecision#MODEL_DTYPE} keeps the model's dtype instead.
 *
 * <p>Scoring runs on the caller's thread; cancellation takes effect between texts and between
 * passes. The session and tokenizer guard their own lifetimes, so closing a cross-encoder while it
 * scores lets the running pass finish and fails the rest of the call with UNAVAILABLE.
 */
public final class CrossEncoder implements AutoCloseable {
  private final RerankerCard card;
  private final TextTokenizer tokenizer;
  private final OnnxModel onnx;
  private final long yesId;
  private final long noId;
  private final int maxBatchTokens;
  private final String modelSha256;

  public CrossEncoder(
      RerankerCard card, ModelFiles files, OnnxModel.RuntimeOptions runtime, int maxBatchTokens) {
    if (card.head() != ScoreHead.SIGMOID
        && card.head() != ScoreHead.SOFTMAX2
        && card.head() != ScoreHead.YES_NO) {
      throw new InvalidInputException(
          "model_id",
          "reranker "
              + card.id()
              + ": head "
              + card.head()
              + " is a retrieval model's; a card's head is SIGMOID, SOFTMAX2 or YES_NO");
    }
    this.card = card;
    this.modelSha256 =
        ModelDigest.of(files.onnx(), files.tokenizerJson(), ModelDigest.canonicalJson(card));
    this.tokenizer = new TextTokenizer(files.tokenizerJson(), card.maxLength());
    try {
      this.onnx = new OnnxModel("reranker " + card.id(), files.onnx(), runtime);
    } catch (RuntimeException e) {
      tokenizer.close();
      throw e;
    }
    this.maxBatchTokens = maxBatchTokens;
    if (card.head() == ScoreHead.YES_NO) {
      yesId = tokenizer.tokenId(card.yesToken());
      noId = tokenizer.tokenId(card.noToken());
      if (yesId < 0 || noId < 0) {
        throw new InvalidInputException(
            "model_id",
            "reranker " + card.id() + ": yes/no tokens are not single tokens of its vocabulary");
      }
    } else {
      yesId = -1;
      noId = -1;
    }
  }

  public RerankerCard card() {
    return card;
  }

  /** SHA-256 of the graph, tokenizer and reranker card ({@link ModelDigest}). */
  public String modelSha256() {
    return modelSha256;
  }

  /** The model output's dtype, e.g. FLOAT or FLOAT16. */
  public String dtype() {
    return onnx.outputType();
  }

  /** Scores of each document for the query, in input order. */
  public float[] score(
      String query, List<String> documents, ScorePrecision precision, Cancellation cancellation) {
    long[][] ids;
    long[][] types;
    if (card.head() == ScoreHead.YES_NO) {
      List<String> prompts = new ArrayList<>(documents.size());
      for (String document : documents) {
        prompts.add(
            card.promptTemplate().replace("{query}", query).replace("{document}", document));
      }
      ids = tokenizer.encode(prompts, cancellation).ids();
      types = null;
    } else {
      long[][][] pairs = tokenizer.encodePairs(query, documents, cancellation);
      ids = pairs[0];
      types = pairs[1];
    }
    Integer[] order = new Integer[ids.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    long[][] finalIds = ids;
    java.util.Arrays.sort(order, java.util.Comparator.comparingInt(i -> finalIds[i].length));
    float[] scores = new float[documents.size()];
    boolean half = precision == ScorePrecision.MODEL_DTYPE && dtype().startsWith("FLOAT16");
    long tokensPerPass = tokensPerPass();
    int from = 0;
    while (from < order.length) {
      cancellation.throwIfCancelled();
      int to = from + 1;
      while (to < order.length && (long) ids[order[to]].length * (to - from + 1) <= tokensPerPass) {
        to++;
      }
      long[][] batchIds = new long[to - from][];
      long[][] batchTypes = types == null ? null : new long[to - from][];
      for (int i = from; i < to; i++) {
        batchIds[i - from] = ids[order[i]];
        if (types != null) {
          batchTypes[i - from] = types[order[i]];
        }
      }
      if (card.head() == ScoreHead.YES_NO) {
        float[][] yesNo = onnx.lastTokenColumns(batchIds, new long[] {yesId, noId});
        for (int i = from; i < to; i++) {
          scores[order[i]] = yesNo(yesNo[i - from][0], yesNo[i - from][1], half);
        }
      } else {
        OnnxModel.Output output = onnx.run(batchIds, batchTypes);
        for (int i = from; i < to; i++) {
          scores[order[i]] = head(output, i - from, half);
        }
      }
      from = to;
    }
    return scores;
  }

  /**
   * Padded tokens per pass: {@code maxBatchTokens}, and for YES_NO heads whose graph outputs logits
   * at every position also at most {@link #MAX_LOGITS_BYTES} of logits per pass.
   */
  private long tokensPerPass() {
    if (card.head() != ScoreHead.YES_NO || onnx.declaredOutputRank() != 3) {
      return maxBatchTokens;
    }
    long bytesPerToken = onnx.outputWidth() * onnx.outputElementBytes();
    return Math.max(1, Math.min(maxBatchTokens, MAX_LOGITS_BYTES / bytesPerToken));
  }

  /**
   * The most bytes of [batch, sequence, vocabulary] logits one pass of a YES_NO reranker lets ONNX
   * Runtime write (off the Java heap, in the model's dtype), 512 MiB: Qwen's 151,936-token
   * vocabulary in FP16 allows 1,766 padded tokens per pass.
   */
  static final long MAX_LOGITS_BYTES = 512L << 20;

  private static float yesNo(float yesLogit, float noLogit, boolean half) {
    float yes = round(yesLogit, half);
    float no = round(noLogit, half);
    return round((float) (1 / (1 + Math.exp(no - yes))), half);
  }

  private float head(OnnxModel.Output output, int row, boolean half) {
    float[] values = output.values();
    return switch (card.head()) {
      case SIGMOID -> {
        float logit = round(values[row * output.width()], half);
        yield round((float) (1 / (1 + Math.exp(-logit))), half);
      }
      case SOFTMAX2 -> {
        float a = round(values[row * 2], half);
        float b = round(values[row * 2 + 1], half);
        yield round((float) (1 / (1 + Math.exp(a - b))), half);
      }
      default -> throw new IllegalStateException(card.head() + " is not a cross-encoder head");
    };
  }

  private static float round(float value, boolean half) {
    return half ? Float.float16ToFloat(Float.floatToFloat16(value)) : value;
  }

  /** Refuses new passes, waits for the running one, frees the session and the tokenizer. */
  @Override
  public void close() {
    onnx.close();
    tokenizer.close();
  }
}
