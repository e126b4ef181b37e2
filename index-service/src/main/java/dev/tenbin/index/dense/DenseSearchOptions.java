package dev.tenbin.index.dense;

/**
 * One efficiency variant of a dense search, derived from the one stored float encode.
 *
 * @param similarity cosine or dot
 * @param truncateDimensions leading dimensions kept (Matryoshka); 0 = all
 * @param quantization float, int8 or binary scan
 * @param rescore re-score the quantized top {@code rescoreDepth} with the float vectors
 * @param rescoreDepth how many quantized hits are re-scored (at least k); default 100
 * @param approximate Lucene HNSW proposes max(k, rescoreDepth) candidates, re-scored exactly in
 *     float; the recall against the exact top-k is reported
 */
public record DenseSearchOptions(
    VectorSimilarity similarity,
    int truncateDimensions,
    Quantization quantization,
    boolean rescore,
    int rescoreDepth,
    boolean approximate) {
  public DenseSearchOptions {
    rescoreDepth = rescoreDepth <= 0 ? 100 : rescoreDepth;
  }

  public DenseSearchOptions(
      VectorSimilarity similarity, int truncateDimensions, Quantization quantization, boolean rescore, int rescoreDepth) {
    this(similarity, truncateDimensions, quantization, rescore, rescoreDepth, false);
  }

  public static DenseSearchOptions exact(VectorSimilarity similarity) {
    return new DenseSearchOptions(similarity, 0, Quantization.NONE, false, 100);
  }

  /** Bytes one stored vector takes in this variant's scan. */
  public static long bytesPerVector(Quantization quantization, int dims) {
    return switch (quantization) {
      case NONE -> 4L * dims;
      case INT8 -> dims;
      case BINARY -> (dims + 7) / 8;
    };
  }
}
