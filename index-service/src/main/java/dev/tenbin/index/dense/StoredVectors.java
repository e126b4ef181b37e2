package dev.tenbin.index.dense;

import java.nio.FloatBuffer;
import java.util.List;

/**
 * Row-major float vectors that {@link DenseSearcher} reads: a heap array, or the memory mappings of
 * a vector file ({@link DenseVectorStore#mapped()}), read in place without a heap copy of the
 * whole.
 *
 * <p>The scan kernels read float arrays (the Vector API of the Java release Tenbin targets loads
 * from arrays or from the preview {@code MemorySegment}), so mapped rows are read in cache-sized
 * runs: {@link #rows} copies a run of rows into a small caller-owned buffer (a memcpy from the page
 * cache; the buffer is reused), while a heap array is read where it lies.
 */
public final class StoredVectors {
  private final int dimension;
  private final int size;
  private final float[] array;
  private final List<FloatBuffer> mappings;
  private final int rowsPerMapping;

  private StoredVectors(
      int dimension, int size, float[] array, List<FloatBuffer> mappings, int rowsPerMapping) {
    this.dimension = dimension;
    this.size = size;
    this.array = array;
    this.mappings = mappings;
    this.rowsPerMapping = rowsPerMapping;
  }

  /** Vectors in a heap array (not copied: do not modify). */
  public static StoredVectors of(float[] vectors, int dimension) {
    if (dimension < 1 || vectors.length % dimension != 0) {
      throw new IllegalArgumentException(
          vectors.length + " values are not whole vectors of " + dimension + " dimensions");
    }
    return new StoredVectors(dimension, vectors.length / dimension, vectors, null, 0);
  }

  /**
   * Vectors in read-only mappings, each holding {@code rowsPerMapping} whole rows (the last may
   * hold fewer); {@code size} rows in all.
   */
  static StoredVectors mapped(
      List<FloatBuffer> mappings, int rowsPerMapping, int dimension, int size) {
    return new StoredVectors(dimension, size, null, List.copyOf(mappings), rowsPerMapping);
  }

  public int size() {
    return size;
  }

  public int dimension() {
    return dimension;
  }

  /** Whether the vectors are memory-mapped (not a heap array). */
  public boolean isMapped() {
    return array == null;
  }

  /** Floats on the heap that these vectors take: the array, or 0 when mapped. */
  public long heapBytes() {
    return array == null ? 0 : 4L * array.length;
  }

  /**
   * Where rows {@code [from, from + count)} can be read as floats: the heap array itself (at {@code
   * from · dimension}), or {@code buffer} filled with them (at 0; it must hold {@code count} rows).
   */
  public Run rows(int from, int count, float[] buffer) {
    if (array != null) {
      return new Run(array, from * dimension);
    }
    copy(from, count, buffer, 0);
    return new Run(buffer, 0);
  }

  /** A new array of rows {@code [from, from + count)}. */
  public float[] copyRows(int from, int count) {
    float[] out = new float[Math.multiplyExact(count, dimension)];
    if (array != null) {
      System.arraycopy(array, from * dimension, out, 0, out.length);
    } else {
      copy(from, count, out, 0);
    }
    return out;
  }

  /** Row {@code ordinal} into {@code out} (at least {@link #dimension()} long). */
  public void row(int ordinal, float[] out) {
    if (array != null) {
      System.arraycopy(array, ordinal * dimension, out, 0, dimension);
    } else {
      copy(ordinal, 1, out, 0);
    }
  }

  private void copy(int from, int count, float[] out, int at) {
    if (from < 0 || count < 0 || from + count > size) {
      throw new IndexOutOfBoundsException(
          "rows " + from + ".." + (from + count) + " are not within 0.." + size);
    }
    int row = from;
    int end = from + count;
    while (row < end) {
      int mapping = row / rowsPerMapping;
      int inMapping = row % rowsPerMapping;
      int rows = Math.min(end - row, rowsPerMapping - inMapping);
      mappings.get(mapping).get(inMapping * dimension, out, at, rows * dimension);
      at += rows * dimension;
      row += rows;
    }
  }

  /** Floats to read rows from, starting at {@code offset}. */
  public record Run(float[] floats, int offset) {}
}
