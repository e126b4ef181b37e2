package dev.tenbin.index.quantize;

/**
 * Per-dimension affine int8 quantization calibrated on the corpus only: per dimension the corpus
 * minimum and maximum, step = (max − min) / 255, code = floor((x − min) / step) − 128 clipped to
 * [−128, 127]. Queries use the corpus ranges and are clipped. A constant dimension (max = min) has
 * no step: every value there maps to −128, so it adds the same amount to every document's score.
 * Scores are dot products of the codes (int accumulation).
 */
public final class Int8Quantizer {
  private final float[] minimums;
  private final float[] maximums;
  private final float[] steps;

  private Int8Quantizer(float[] minimums, float[] maximums) {
    this.minimums = minimums;
    this.maximums = maximums;
    this.steps = new float[minimums.length];
    for (int d = 0; d < steps.length; d++) {
      steps[d] = (maximums[d] - minimums[d]) / 255f;
    }
  }

  /** Calibrates on row-major vectors of {@code dims} dimensions. */
  public static Int8Quantizer calibrate(float[] vectors, int dims) {
    float[] min = new float[dims];
    float[] max = new float[dims];
    java.util.Arrays.fill(min, Float.POSITIVE_INFINITY);
    java.util.Arrays.fill(max, Float.NEGATIVE_INFINITY);
    for (int i = 0; i < vectors.length; i++) {
      int d = i % dims;
      min[d] = Math.min(min[d], vectors[i]);
      max[d] = Math.max(max[d], vectors[i]);
    }
    return new Int8Quantizer(min, max);
  }

  public float[] minimums() {
    return minimums.clone();
  }

  public float[] maximums() {
    return maximums.clone();
  }

  /** The code of value {@code x} in dimension {@code d}. */
  public byte code(float x, int d) {
    if (!(steps[d] > 0)) {
      return -128;
    }
    double code = Math.floor((x - minimums[d]) / steps[d]) - 128;
    return (byte) Math.max(-128, Math.min(127, code));
  }

  /** Codes of row-major vectors. */
  public byte[] encode(float[] vectors) {
    int dims = minimums.length;
    byte[] codes = new byte[vectors.length];
    for (int i = 0; i < vectors.length; i++) {
      codes[i] = code(vectors[i], i % dims);
    }
    return codes;
  }

  /** Query codes and how many query values fell outside the corpus range (and were clipped). */
  public record QueryCodes(byte[] codes, int clipped) {}

  public QueryCodes encodeQuery(float[] query) {
    byte[] codes = new byte[query.length];
    int clipped = 0;
    for (int d = 0; d < query.length; d++) {
      if (query[d] < minimums[d] || query[d] > maximums[d]) {
        clipped++;
      }
      codes[d] = code(query[d], d);
    }
    return new QueryCodes(codes, clipped);
  }

  /** Dot product of a query's codes with one document's codes. */
  public static int dot(byte[] query, byte[] docs, int offset) {
    int sum = 0;
    for (int d = 0; d < query.length; d++) {
      sum += query[d] * docs[offset + d];
    }
    return sum;
  }
}
