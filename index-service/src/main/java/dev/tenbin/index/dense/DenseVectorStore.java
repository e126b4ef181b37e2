package dev.tenbin.index.dense;

import dev.tenbin.core.InvalidInputException;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Float32 vectors of one collection, appended in ordinal order to a little-endian file and read
 * back through a memory mapping. A small {@code count} file, replaced atomically after the data is
 * forced to disk, says how many vectors are committed; bytes past it (an interrupted batch) are cut
 * off when the store is reopened.
 */
public final class DenseVectorStore implements Closeable {
  private final Path directory;
  private final int dimension;
  private final FileChannel channel;
  private int committed;
  private int pending;
  private java.nio.FloatBuffer mapped;

  private DenseVectorStore(Path directory, int dimension) throws IOException {
    this.directory = directory;
    this.dimension = dimension;
    Files.createDirectories(directory);
    Path countFile = directory.resolve("count");
    this.committed = Files.exists(countFile) ? Integer.parseInt(Files.readString(countFile).trim()) : 0;
    this.channel =
        FileChannel.open(directory.resolve("vectors.f32"), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    channel.truncate(bytes(committed));
    remap();
  }

  public static DenseVectorStore open(Path directory, int dimension) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension must be positive");
    }
    try {
      return new DenseVectorStore(directory, dimension);
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

  /** Checks vectors without storing them: dimension and finiteness, naming the offending field. */
  public void validate(List<float[]> vectors, String field) {
    for (int i = 0; i < vectors.size(); i++) {
      float[] vector = vectors.get(i);
      String name = field.replace("{i}", Integer.toString(i));
      if (vector == null) {
        throw new InvalidInputException(name, "a dense vector is required");
      }
      if (vector.length != dimension) {
        throw new InvalidInputException(
            name, "dense vector has " + vector.length + " dimensions; the collection stores " + dimension);
      }
      for (float v : vector) {
        if (!Float.isFinite(v)) {
          throw new InvalidInputException(name, "dense vector holds a NaN or infinite value");
        }
      }
    }
  }

  /** Writes vectors after the committed ones; visible after {@link #commit()}. */
  public synchronized void append(List<float[]> vectors) {
    ByteBuffer buffer = ByteBuffer.allocate(vectors.size() * dimension * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (float[] vector : vectors) {
      for (float v : vector) {
        buffer.putFloat(v);
      }
    }
    buffer.flip();
    try {
      long position = bytes(committed + pending);
      while (buffer.hasRemaining()) {
        position += channel.write(buffer, position);
      }
      pending += vectors.size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized void commit() {
    try {
      channel.force(false);
      Path tmp = directory.resolve("count.tmp");
      Files.writeString(tmp, Integer.toString(committed + pending));
      Files.move(tmp, directory.resolve("count"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      committed += pending;
      pending = 0;
      remap();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized void rollback() {
    pending = 0;
    try {
      channel.truncate(bytes(committed));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Keeps the first {@code count} vectors (the collection aligns the store with its texts). */
  public synchronized void truncateTo(int count) {
    if (count >= committed) {
      return;
    }
    committed = count;
    pending = 0;
    try {
      Files.writeString(directory.resolve("count"), Integer.toString(count));
      channel.truncate(bytes(count));
      remap();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A committed vector. */
  public synchronized float[] vector(int ordinal) {
    float[] out = new float[dimension];
    mapped.get(ordinal * dimension, out, 0, dimension);
    return out;
  }

  /** All committed vectors as one row-major array (the scan reads it sequentially). */
  public synchronized float[] snapshot() {
    float[] out = new float[committed * dimension];
    mapped.get(0, out, 0, out.length);
    return out;
  }

  public long bytesOnDisk() {
    return bytes(committed);
  }

  private long bytes(int vectors) {
    return (long) vectors * dimension * Float.BYTES;
  }

  private void remap() throws IOException {
    mapped =
        channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes(committed)).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
  }

  @Override
  public synchronized void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
