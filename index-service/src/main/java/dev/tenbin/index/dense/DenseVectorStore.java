package dev.tenbin.index.dense;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.storage.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Float32 vectors of one collection, persistent and append-only, addressed by ordinal (insertion
 * order).
 *
 * <h2>Files</h2>
 *
 * <ul>
 *   <li>{@code vectors.f32}: the vectors back to back, little-endian, read through memory mappings
 *       of up to 1 GiB each (so the store is not limited to the 2 GiB of one mapping).
 *   <li>{@code manifest}: {@code count} (committed vectors) and {@code dimension}, replaced
 *       atomically. Stores written before the manifest existed have a {@code count} file instead,
 *       read once and replaced by a manifest.
 * </ul>
 *
 * <h2>Commit protocol</h2>
 *
 * {@link #append} writes after the committed vectors; nothing appended is visible ({@link #size},
 * {@link #vector}, {@link #snapshot}) until {@link #commit}, which forces the data file to disk and
 * then atomically replaces the manifest (written to a temporary file, forced, moved with {@code
 * ATOMIC_MOVE}). A crash at any point leaves the previous or the new committed state: on reopen
 * only the manifest's count is visible and any bytes past it are cut off. {@link #rollback}
 * discards uncommitted appends; {@link #truncateTo} drops committed vectors from the end (the
 * collection aligns the store with the documents its lexical index committed).
 *
 * <p>Thread-safe; all methods are synchronized.
 */
public final class DenseVectorStore implements Closeable {
  private static final String DATA = "vectors.f32";
  private static final String MANIFEST = "manifest";
  private static final String LEGACY_COUNT = "count";
  private static final long MAX_MAPPING_BYTES = 1L << 30;
  private static final int WRITE_BUFFER_BYTES = 16 << 20;

  /** Largest float[] the JVM reliably allocates. */
  private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final Path directory;
  private final int dimension;
  private final int vectorsPerMapping;
  private final FileChannel channel;
  private final List<FloatBuffer> mappings = new ArrayList<>();
  private int committed;
  private int pending;
  private boolean closed;

  private DenseVectorStore(Path directory, int dimension, long mappingBytes) throws IOException {
    this.directory = directory;
    this.dimension = dimension;
    this.vectorsPerMapping = (int) Math.max(1, mappingBytes / (4L * dimension));
    Files.createDirectories(directory);
    this.committed = readCommittedCount();
    this.channel =
        FileChannel.open(
            directory.resolve(DATA),
            StandardOpenOption.CREATE,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE);
    try {
      if (channel.size() < bytes(committed)) {
        throw new IllegalStateException(
            "dense vectors in "
                + directory
                + " are damaged: "
                + DATA
                + " holds "
                + channel.size()
                + " bytes, the manifest commits "
                + committed
                + " vectors of "
                + dimension
                + " dimensions");
      }
      channel.truncate(bytes(committed));
      if (!Files.exists(directory.resolve(MANIFEST))) {
        writeManifest(committed);
        Files.deleteIfExists(directory.resolve(LEGACY_COUNT));
      }
      remap(0);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Creates the store in {@code directory}, or reopens it with its committed vectors.
   *
   * @throws IllegalStateException when the store there holds vectors of another dimension or its
   *     data file is shorter than its manifest says
   */
  public static DenseVectorStore open(Path directory, int dimension) {
    return open(directory, dimension, MAX_MAPPING_BYTES);
  }

  /**
   * {@link #open(Path, int)} with mappings of at most {@code mappingBytes} (tests use small ones).
   */
  static DenseVectorStore open(Path directory, int dimension, long mappingBytes) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension must be positive, got " + dimension);
    }
    try {
      return new DenseVectorStore(directory, dimension, mappingBytes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open dense vectors in " + directory, e);
    }
  }

  public int dimension() {
    return dimension;
  }

  /** Committed vectors. */
  public synchronized int size() {
    return committed;
  }

  /**
   * Checks vectors without storing them: present, {@link #dimension()} values, all finite. The
   * exception names the field, {@code field} with {@code {i}} replaced by the document's position
   * in the list (e.g. {@code documents[{i}].dense} → {@code documents[3].dense}).
   */
  public void validate(List<float[]> vectors, String field) {
    for (int i = 0; i < vectors.size(); i++) {
      float[] vector = vectors.get(i);
      String name = field.replace("{i}", Integer.toString(i));
      if (vector == null) {
        throw new InvalidInputException(
            name, "document " + i + " has no dense vector; this collection needs one");
      }
      if (vector.length != dimension) {
        throw new InvalidInputException(
            name,
            "the dense vector of document "
                + i
                + " has "
                + vector.length
                + " dimensions; the collection stores "
                + dimension);
      }
      for (int d = 0; d < vector.length; d++) {
        if (!Float.isFinite(vector[d])) {
          throw new InvalidInputException(
              name,
              "the dense vector of document "
                  + i
                  + " holds a NaN or infinite value at dimension "
                  + d);
        }
      }
    }
  }

  /**
   * Validates ({@link #validate} with {@code documents[{i}].dense}) and writes vectors after the
   * committed and pending ones; they become visible at {@link #commit()}. Nothing is written when
   * any vector is invalid.
   */
  public synchronized void append(List<float[]> vectors) {
    ensureOpen();
    validate(vectors, "documents[{i}].dense");
    if ((long) committed + pending + vectors.size() > Integer.MAX_VALUE) {
      throw new IllegalStateException(
          "a dense store holds at most " + Integer.MAX_VALUE + " vectors");
    }
    int perWrite = Math.max(1, WRITE_BUFFER_BYTES / (dimension * Float.BYTES));
    ByteBuffer buffer =
        ByteBuffer.allocate(Math.min(vectors.size(), perWrite) * dimension * Float.BYTES)
            .order(ByteOrder.LITTLE_ENDIAN);
    try {
      long position = bytes(committed + pending);
      for (int from = 0; from < vectors.size(); from += perWrite) {
        buffer.clear();
        FloatBuffer floats = buffer.asFloatBuffer();
        int to = Math.min(vectors.size(), from + perWrite);
        for (int i = from; i < to; i++) {
          floats.put(vectors.get(i));
        }
        buffer.limit(floats.position() * Float.BYTES);
        while (buffer.hasRemaining()) {
          position += channel.write(buffer, position);
        }
      }
      pending += vectors.size();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append dense vectors in " + directory, e);
    }
  }

  /** Makes the appended vectors durable and visible at once. */
  public synchronized void commit() {
    ensureOpen();
    if (pending == 0) {
      return;
    }
    try {
      channel.force(false);
      writeManifest(committed + pending);
      int firstNew = committed;
      committed += pending;
      pending = 0;
      remap(firstNew);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot commit dense vectors in " + directory, e);
    }
  }

  /** Discards the vectors appended since the last commit. */
  public synchronized void rollback() {
    ensureOpen();
    pending = 0;
    try {
      channel.truncate(bytes(committed));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot roll back dense vectors in " + directory, e);
    }
  }

  /**
   * Keeps only the first {@code count} committed vectors (durably) and discards uncommitted
   * appends; a count at or above {@link #size()} keeps every committed vector.
   */
  public synchronized void truncateTo(int count) {
    ensureOpen();
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative, got " + count);
    }
    try {
      pending = 0;
      if (count < committed) {
        // The manifest first: a crash before the file shrinks leaves bytes that reopening cuts off.
        writeManifest(count);
        committed = count;
        channel.truncate(bytes(count));
        channel.force(false);
        mappings.clear();
        remap(0);
      } else {
        channel.truncate(bytes(committed));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot truncate dense vectors in " + directory, e);
    }
  }

  /** A copy of committed vector {@code ordinal}. */
  public synchronized float[] vector(int ordinal) {
    ensureOpen();
    if (ordinal < 0 || ordinal >= committed) {
      throw new IndexOutOfBoundsException(
          "ordinal " + ordinal + " is not within 0.." + (committed - 1));
    }
    float[] out = new float[dimension];
    mappings
        .get(ordinal / vectorsPerMapping)
        .get((ordinal % vectorsPerMapping) * dimension, out, 0, dimension);
    return out;
  }

  /**
   * All committed vectors copied into one row-major heap array (tests and small stores; searches
   * scan {@link #mapped()} instead).
   *
   * @throws IllegalStateException when they exceed the largest Java array (2³¹ floats)
   */
  public synchronized float[] snapshot() {
    ensureOpen();
    long total = (long) committed * dimension;
    if (total > MAX_ARRAY) {
      throw new IllegalStateException(
          committed
              + " vectors of "
              + dimension
              + " dimensions exceed the "
              + MAX_ARRAY
              + " floats one scan array holds");
    }
    float[] out = new float[(int) total];
    int at = 0;
    for (FloatBuffer mapping : mappings) {
      mapping.get(0, out, at, mapping.capacity());
      at += mapping.capacity();
    }
    return out;
  }

  /**
   * All committed vectors, read in place through the store's read-only memory mappings: what {@link
   * DenseSearcher} scans without copying the vectors to the heap (the pages are the operating
   * system's file cache, counted in the process's file-backed RSS). Valid while referenced (a
   * mapping is released by the garbage collector, not by {@link #close}) and while the store is not
   * {@link #truncateTo cut} below it; vectors committed later are not in it: ask again after a
   * commit.
   */
  public synchronized StoredVectors mapped() {
    ensureOpen();
    return StoredVectors.mapped(mappings, vectorsPerMapping, dimension, committed);
  }

  /** Bytes of committed vectors. */
  public synchronized long bytesOnDisk() {
    return bytes(committed);
  }

  private long bytes(int vectors) {
    return (long) vectors * dimension * Float.BYTES;
  }

  /**
   * Maps the committed vectors from the mapping holding {@code firstChanged} on; earlier ones stay.
   */
  private void remap(int firstChanged) throws IOException {
    int keep = Math.min(mappings.size(), firstChanged / vectorsPerMapping);
    mappings.subList(keep, mappings.size()).clear();
    for (long start = (long) keep * vectorsPerMapping;
        start < committed;
        start += vectorsPerMapping) {
      long vectorsHere = Math.min(vectorsPerMapping, committed - start);
      mappings.add(
          channel
              .map(FileChannel.MapMode.READ_ONLY, bytes((int) start), bytes((int) vectorsHere))
              .order(ByteOrder.LITTLE_ENDIAN)
              .asFloatBuffer());
    }
  }

  private int readCommittedCount() throws IOException {
    Path manifest = directory.resolve(MANIFEST);
    try {
      if (Files.exists(manifest)) {
        Properties properties = new Properties();
        properties.load(new StringReader(Files.readString(manifest, StandardCharsets.UTF_8)));
        int stored = Integer.parseInt(properties.getProperty("dimension", "-1").trim());
        if (stored != dimension) {
          throw new IllegalStateException(
              "dense vectors in "
                  + directory
                  + " have "
                  + stored
                  + " dimensions, not "
                  + dimension);
        }
        return nonNegative(Integer.parseInt(properties.getProperty("count", "0").trim()));
      }
      Path legacy = directory.resolve(LEGACY_COUNT);
      return Files.exists(legacy)
          ? nonNegative(Integer.parseInt(Files.readString(legacy).trim()))
          : 0;
    } catch (NumberFormatException | java.nio.charset.CharacterCodingException e) {
      throw new IllegalStateException(
          "the dense manifest in " + directory + " is damaged (not a count and a dimension)");
    }
  }

  private int nonNegative(int count) {
    if (count < 0) {
      throw new IllegalStateException(
          "the dense manifest in " + directory + " is damaged (negative count)");
    }
    return count;
  }

  /** Replaces the manifest atomically and durably. */
  private void writeManifest(int count) throws IOException {
    DurableFiles.replace(
        directory.resolve(MANIFEST),
        "# Tenbin dense vectors: float32 little-endian in "
            + DATA
            + "\ncount="
            + count
            + "\ndimension="
            + dimension
            + "\n");
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("dense vectors in " + directory + " are closed");
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    mappings.clear();
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
