package dev.tenbin.index.quantize;

/**
 * Sign quantization: bit = (x > 0), packed 64 to a long. The score is a Hamming similarity,
 * dimension − popcount(query XOR document), so it ties often; the float score keeps the ties
 * visible to tie-aware metrics.
 */
public final class BinaryQuantizer {
  private BinaryQuantizer() {}

  public static int words(int dims) {
    return (dims + 63) / 64;
  }

  /** Packed bits of row-major vectors of {@code dims} dimensions. */
  public static long[] encode(float[] vectors, int dims) {
    int n = vectors.length / dims;
    int words = words(dims);
    long[] bits = new long[n * words];
    for (int v = 0; v < n; v++) {
      for (int d = 0; d < dims; d++) {
        if (vectors[v * dims + d] > 0) {
          bits[v * words + d / 64] |= 1L << (d % 64);
        }
      }
    }
    return bits;
  }

  /** dimension − Hamming distance between a query's words and one document's. */
  public static int similarity(long[] query, long[] docs, int offset, int dims) {
    int distance = 0;
    for (int w = 0; w < query.length; w++) {
      distance += Long.bitCount(query[w] ^ docs[offset + w]);
    }
    return dims - distance;
  }
}
