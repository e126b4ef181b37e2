package dev.tenbin.encoder;

import dev.tenbin.model.card.Pooling;
import dev.tenbin.model.onnx.OnnxModel;

/** Pooling, normalisation and truncation of encoder outputs, all in FP32. */
public final class Pooler {
  private Pooler() {}

  /** One vector per input from a [batch, sequence, hidden] output. */
  public static float[] pool(OnnxModel.Output output, int batchIndex, int tokens, Pooling pooling) {
    int width = output.width();
    float[] values = output.values();
    float[] pooled = new float[width];
    switch (pooling) {
      case CLS -> System.arraycopy(values, output.offset(batchIndex, 0), pooled, 0, width);
      case LAST_TOKEN ->
          System.arraycopy(values, output.offset(batchIndex, tokens - 1), pooled, 0, width);
      case MEAN -> {
        for (int t = 0; t < tokens; t++) {
          int offset = output.offset(batchIndex, t);
          for (int h = 0; h < width; h++) {
            pooled[h] += values[offset + h];
          }
        }
        for (int h = 0; h < width; h++) {
          pooled[h] /= tokens;
        }
      }
    }
    return pooled;
  }

  /**
   * The first {@code dimensions} values, L2-normalised when asked (after truncation). A caller
   * passes fewer dimensions than the vector has only for a truncation a request asked for ({@link
   * dev.tenbin.model.card.ModelCard#resolveDimensions}); the vector's own width is the model's
   * (checked against its card at load), never cut to fit a card.
   */
  public static float[] finish(float[] vector, int dimensions, boolean normalize) {
    if (dimensions < 1 || dimensions > vector.length) {
      throw new IllegalArgumentException(
          "cannot keep " + dimensions + " dimensions of a " + vector.length + "-wide vector");
    }
    float[] out =
        dimensions == vector.length ? vector : java.util.Arrays.copyOf(vector, dimensions);
    if (normalize) {
      normalizeInPlace(out);
    }
    return out;
  }

  public static void normalizeInPlace(float[] vector) {
    double sum = 0;
    for (float v : vector) {
      sum += (double) v * v;
    }
    float norm = (float) Math.sqrt(sum);
    if (norm > 0) {
      for (int i = 0; i < vector.length; i++) {
        vector[i] /= norm;
      }
    }
  }
}
