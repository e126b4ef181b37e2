package dev.tenbin.index.quantize;

/**
 * Per-dimension affine int8 quantization calibrated on the corpus only ({@link Int8Calibration}).
 *
 * <p>Per dimension d: {@code step = (max − min) / 255}, {@code code = floor((x − min) / step) −
 * 128} clipped to [−128, 127]. It is evaluated as {@code floor(255 · (x − min) / (max − min)) −
 * 128} in double: for float inputs the differences and the product are exact, so the only rounding
 * is the one division, and the code equals the formula's value in exact arithmetic (x = min → −128,
 * x = max → 127) unless the exact quotient lies within about 1e-14 below an integer. Evaluating the
 * formula in FP32 as written would not: {@code (max − min) / step} comes out as 254.99998 for some
 * ranges and puts the corpus maximum in code 126. Queries use the corpus ranges; a query value
 * outside [min, max] is clipped to the end code and counted ({@link QueryCodes#clipped()}).
 *
 * <p>A constant dimension (max = min) has no step. Rather than divide by zero, every value there,
 * document or query, gets code −128: the dimension then adds the same −128 · query code to every
 * document's score and cannot change the ranking. A query value different from the constant counts
 * as clipped.
 *
 * <p>The score is the dot product of the codes, accumulated in int: exact, so neither SIMD lane
 * order nor thread count can change it. {@link #dot(byte[], byte[], int)} is the scalar reference;
 * scans score with {@link Int8Rows}, which stores the codes in the form its SIMD kernel reads and
 * gives the same integers.
 */
public final class Int8Quantizer {
  private final Int8Calibration calibration;
  private final float[] minimums;
  private final float[] maximums;

  /** max − min per dimension, exact in double. */
  private final double[] ranges;

  private Int8Quantizer(Int8Calibration calibration) {
    this.calibration = calibration;
    this.minimums = calibration.min();
    this.maximums = calibration.max();
    this.ranges = new double[minimums.length];
    for (int d = 0; d < ranges.length; d++) {
      ranges[d] = (double) maximums[d] - minimums[d];
    }
  }

  /** A quantizer for stored (or freshly computed) ranges. */
  public static Int8Quantizer of(Int8Calibration calibration) {
    return new Int8Quantizer(calibration);
  }

  /** Calibrates on row-major corpus vectors of {@code dims} dimensions (at least one vector). */
  public static Int8Quantizer calibrate(float[] vectors, int dims) {
    return new Int8Quantizer(Int8Calibration.of(vectors, dims));
  }

  public Int8Calibration calibration() {
    return calibration;
  }

  public int dimensions() {
    return minimums.length;
  }

  public float[] minimums() {
    return minimums.clone();
  }

  public float[] maximums() {
    return maximums.clone();
  }

  /** The code of value {@code x} in dimension {@code d}. */
  public byte code(float x, int d) {
    double range = ranges[d];
    if (!(range > 0)) {
      return -128;
    }
    double code = Math.floor(((double) x - minimums[d]) * 255 / range) - 128;
    return (byte) Math.max(-128, Math.min(127, code));
  }

  /** Codes of row-major vectors of {@link #dimensions()} dimensions. */
  public byte[] encode(float[] vectors) {
    int dims = minimums.length;
    byte[] codes = new byte[vectors.length];
    for (int row = 0; row < vectors.length; row += dims) {
      for (int d = 0; d < dims; d++) {
        codes[row + d] = code(vectors[row + d], d);
      }
    }
    return codes;
  }

  /**
   * A query's codes and how many of its values fell outside the corpus range and were clipped.
   *
   * @param codes one code per dimension
   * @param clipped values below the corpus minimum or above the corpus maximum of their dimension
   */
  public record QueryCodes(byte[] codes, int clipped) {
    /**
     * Codes at an end of the range (−128 or 127): the clipped values and those at the corpus ends.
     */
    public int saturated() {
      return (int) Int8Quantizer.saturated(codes);
    }

    /** The codes in the form {@link Int8Rows#dot} reads. */
    public Int8Rows.Query forRows() {
      return Int8Rows.Query.of(codes);
    }
  }

  public QueryCodes encodeQuery(float[] query) {
    if (query.length != minimums.length) {
      throw new IllegalArgumentException(
          "query has " + query.length + " dimensions, calibration " + minimums.length);
    }
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

  /** How many of {@code codes} sit at an end of the code range, −128 or 127. */
  public static long saturated(byte[] codes) {
    long saturated = 0;
    for (byte code : codes) {
      if (code == Byte.MIN_VALUE || code == Byte.MAX_VALUE) {
        saturated++;
      }
    }
    return saturated;
  }

  /** Σ query[d] · codes[offset + d], scalar: the reference the SIMD kernel must equal. */
  public static int dot(byte[] query, byte[] codes, int offset) {
    int sum = 0;
    for (int d = 0; d < query.length; d++) {
      sum += query[d] * codes[offset + d];
    }
    return sum;
  }
}
