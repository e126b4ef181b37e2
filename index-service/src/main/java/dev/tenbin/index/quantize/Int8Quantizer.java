package dev.tenbin.index.quantize;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

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
 * order nor thread count can change it ({@link #dot(short[], byte[], int)}).
 */
public final class Int8Quantizer {
  private static final VectorSpecies<Byte> BYTES = ByteVector.SPECIES_128;
  private static final VectorSpecies<Short> SHORTS = ShortVector.SPECIES_256;
  private static final VectorSpecies<Integer> INTS = IntVector.SPECIES_256;

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

    /** The codes widened to short, the form {@link #dot(short[], byte[], int)} reads. */
    public short[] widened() {
      short[] out = new short[codes.length];
      for (int d = 0; d < codes.length; d++) {
        out[d] = codes[d];
      }
      return out;
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

  /**
   * Σ query[d] · codes[offset + d] for a query widened to short, exact in int (SIMD on AVX2).
   *
   * <p>Sixteen codes at a time are widened to 16-bit lanes and multiplied there: a product of two
   * int8 codes lies in [−16256, 16384] and fits. Each pair of 16-bit products is then read as one
   * 32-bit lane {@code p}, and its two halves, {@code p >> 16} and {@code (p << 16) >> 16}
   * (arithmetic shifts), are added to int accumulators. This does without the slow 16→32-bit lane
   * conversion that makes a plain widening kernel (Lucene's {@code VectorUtil.dotProduct} on AVX2)
   * no faster than the float scan.
   */
  public static int dot(short[] query, byte[] codes, int offset) {
    int length = query.length;
    IntVector high = IntVector.zero(INTS);
    IntVector low = IntVector.zero(INTS);
    int i = 0;
    int bound = length & ~(SHORTS.length() - 1);
    for (; i < bound; i += SHORTS.length()) {
      ShortVector document =
          (ShortVector) ByteVector.fromArray(BYTES, codes, offset + i).castShape(SHORTS, 0);
      IntVector pairs =
          (IntVector) document.mul(ShortVector.fromArray(SHORTS, query, i)).reinterpretAsInts();
      high = high.add(pairs.lanewise(VectorOperators.ASHR, 16));
      low = low.add(pairs.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
    }
    int sum = high.add(low).reduceLanes(VectorOperators.ADD);
    for (; i < length; i++) {
      sum += query[i] * codes[offset + i];
    }
    return sum;
  }
}
