package dev.tenbin.index.dense;

import dev.tenbin.index.quantize.Int8Calibration;
import java.util.Objects;

/**
 * One efficiency variant of a dense search, derived from the one stored float encode. Every
 * combination is valid: truncation × {float, int8, binary} × {no rescore, rescore}, for cosine or
 * dot, and the optional approximate (HNSW) mode. {@link DenseSearcher} says how each scores.
 *
 * @param similarity cosine or dot
 * @param truncateDimensions leading dimensions kept (Matryoshka or plain truncation); 0 = all
 * @param quantization float, int8 or binary scan
 * @param rescore re-score the quantized top max(k, rescoreDepth) with the float vectors (no effect
 *     on a float scan)
 * @param rescoreDepth quantized hits re-scored, or HNSW candidates asked for; 0 or less means the
 *     default, {@value #DEFAULT_RESCORE_DEPTH}
 * @param approximate a Lucene HNSW graph over the first stage's vectors (float, int8 with one scale
 *     for all dimensions, or sign bits) proposes max(k, rescoreDepth) candidates, scored as the
 *     exact scan of the variant would score them (float: float; int8/binary: their quantized score,
 *     or float with {@code rescore}); the recall against the exact scan's top-k of the same variant
 *     is reported
 * @param int8Calibration int8 only: the ranges to quantize with instead of the collection's own (a
 *     sharded collection's span over its shards), or null
 */
public record DenseSearchOptions(
    VectorSimilarity similarity,
    int truncateDimensions,
    Quantization quantization,
    boolean rescore,
    int rescoreDepth,
    boolean approximate,
    Int8Calibration int8Calibration) {
  public static final int DEFAULT_RESCORE_DEPTH = 100;

  public DenseSearchOptions {
    Objects.requireNonNull(similarity, "similarity");
    Objects.requireNonNull(quantization, "quantization");
    rescoreDepth = rescoreDepth <= 0 ? DEFAULT_RESCORE_DEPTH : rescoreDepth;
  }

  public DenseSearchOptions(
      VectorSimilarity similarity,
      int truncateDimensions,
      Quantization quantization,
      boolean rescore,
      int rescoreDepth,
      boolean approximate) {
    this(similarity, truncateDimensions, quantization, rescore, rescoreDepth, approximate, null);
  }

  public DenseSearchOptions(
      VectorSimilarity similarity,
      int truncateDimensions,
      Quantization quantization,
      boolean rescore,
      int rescoreDepth) {
    this(similarity, truncateDimensions, quantization, rescore, rescoreDepth, false);
  }

  /** The exact float scan over all dimensions (the base variant). */
  public static DenseSearchOptions exact(VectorSimilarity similarity) {
    return new DenseSearchOptions(similarity, 0, Quantization.NONE, false, DEFAULT_RESCORE_DEPTH);
  }

  /**
   * This search as the exact scan (no HNSW): what an approximate search's recall is measured on.
   */
  public DenseSearchOptions exactScan() {
    return new DenseSearchOptions(
        similarity,
        truncateDimensions,
        quantization,
        rescore,
        rescoreDepth,
        false,
        int8Calibration);
  }

  /**
   * Bytes per document a deployment of {@code quantization} over {@code dims} dimensions keeps: the
   * first stage's vectors ({@link #bytesPerVector}) plus, when a quantized first stage is
   * re-scored, the float vectors too (4·d). An HNSW graph's links are not counted.
   */
  public static long storedBytesPerVector(Quantization quantization, boolean rescore, int dims) {
    long firstStage = bytesPerVector(quantization, dims);
    return rescore && quantization != Quantization.NONE ? firstStage + 4L * dims : firstStage;
  }

  /**
   * Bytes one stored vector of {@code dims} dimensions takes in a scan: d·4, d, or ceil(d / 8).
   * This is what the first stage reads per document it scores (every document in an exact scan, the
   * visited ones in HNSW); the scanned bytes per vector.
   */
  public static long bytesPerVector(Quantization quantization, int dims) {
    return switch (quantization) {
      case NONE -> 4L * dims;
      case INT8 -> dims;
      case BINARY -> (dims + 7) / 8;
    };
  }
}
