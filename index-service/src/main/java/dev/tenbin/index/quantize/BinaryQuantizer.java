package dev.tenbin.index.quantize;

/**
 * Sign quantization: bit d of a vector is {@code x[d] > 0} (so 0 and −0 give 0), packed 64 to a
 * long, dimension d at bit {@code d mod 64} of word {@code d / 64}; the unused high bits of the
 * last word are 0 in every code, so they never count as a difference.
 *
 * <p>The score is the Hamming similarity {@code dims − popcount(query XOR document)}: the number of
 * dimensions whose signs agree, an integer in [0, dims] returned as a float. Many documents share a
 * score, so rankings keep the scores and break ties by doc id, and tie-aware metrics downstream can
 * see them. A vector takes {@code ceil(dims / 8)} bytes of bits (in memory the codes are padded to
 * whole longs).
 */
public final class BinaryQuantizer {
  private BinaryQuantizer() {}

  /** Longs per packed vector. */
  public static int words(int dims) {
    return (dims + 63) / 64;
  }

  /**
   * Packed bits of row-major vectors of {@code dims} dimensions, {@link #words} longs per vector.
   */
  public static long[] encode(float[] vectors, int dims) {
    int n = vectors.length / dims;
    int words = words(dims);
    long[] bits = new long[n * words];
    for (int v = 0; v < n; v++) {
      int row = v * dims;
      int out = v * words;
      for (int d = 0; d < dims; d++) {
        if (vectors[row + d] > 0) {
          bits[out + (d >>> 6)] |= 1L << (d & 63);
        }
      }
    }
    return bits;
  }

  /**
   * The signs of values as bytes, +1 where a bit would be set ({@code x > 0}) and −1 elsewhere: the
   * dot product of two such vectors is 2 · (Hamming similarity) − dims, so a graph over them (which
   * needs a dot product) orders neighbours as {@link #similarity} does.
   */
  public static byte[] signs(float[] values) {
    byte[] signs = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      signs[i] = (byte) (values[i] > 0 ? 1 : -1);
    }
    return signs;
  }

  /**
   * dims − Hamming distance between a query's words and one document's, starting at {@code offset}.
   */
  public static int similarity(long[] query, long[] docs, int offset, int dims) {
    int distance = 0;
    for (int w = 0; w < query.length; w++) {
      distance += Long.bitCount(query[w] ^ docs[offset + w]);
    }
    return dims - distance;
  }
}
