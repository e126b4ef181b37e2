package dev.tenbin.index.sparse;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.storage.DurableFiles;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Sparse document vectors of one collection, held in memory for scoring (Nano-sets are small).
 *
 * <h2>Files and commit protocol</h2>
 *
 * {@code sparse.bin} holds records (n, n ids, n weights; big-endian ints and floats) back to back;
 * {@code count} holds the number of committed records and is replaced atomically. {@link #append}
 * only queues vectors; {@link #commit} writes them after the committed records, forces the file,
 * then publishes the new count. {@link #rollback} drops the queue and cuts the file back to the
 * committed records, so a failed commit never leaves bytes a later commit would append after. On
 * reopen only {@code count} records are read and anything past them is cut off; a file that holds
 * fewer, or records that are not valid vectors for the vocabulary, is reported as damaged.
 */
public final class SparseVectorStore implements Closeable {
  private static final String DATA = "sparse.bin";
  private static final String COUNT = "count";

  private final Path directory;
  private final int vocabularySize;
  private final List<SparseDoc> docs = new ArrayList<>();
  private final List<SparseDoc> pending = new ArrayList<>();
  private long committedBytes;

  private SparseVectorStore(Path directory, int vocabularySize) throws IOException {
    this.directory = directory;
    this.vocabularySize = vocabularySize;
    Files.createDirectories(directory);
    int committed = readCount();
    Path data = directory.resolve(DATA);
    if (committed > 0 && !Files.exists(data)) {
      throw damaged("its count commits " + committed + " vectors but " + DATA + " is missing");
    }
    if (Files.exists(data)) {
      try (DataInputStream in =
          new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(data)))) {
        for (int d = 0; d < committed; d++) {
          docs.add(readRecord(in, d));
        }
      } catch (EOFException e) {
        throw damaged(DATA + " holds fewer than the " + committed + " vectors its count commits");
      }
    }
    try (FileChannel channel =
        FileChannel.open(data, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      channel.truncate(committedBytes);
    }
    if (!Files.exists(directory.resolve(COUNT))) {
      DurableFiles.replace(directory.resolve(COUNT), "0");
    }
  }

  public static SparseVectorStore open(Path directory, int vocabularySize) {
    try {
      return new SparseVectorStore(directory, vocabularySize);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open sparse vectors in " + directory, e);
    }
  }

  private int readCount() throws IOException {
    Path countFile = directory.resolve(COUNT);
    if (!Files.exists(countFile)) {
      return 0;
    }
    try {
      int count = Integer.parseInt(Files.readString(countFile).trim());
      if (count < 0) {
        throw damaged("its count is negative");
      }
      return count;
    } catch (NumberFormatException | java.nio.charset.CharacterCodingException e) {
      throw damaged("its count file does not hold a number");
    }
  }

  private SparseDoc readRecord(DataInputStream in, int ordinal) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > vocabularySize) {
      throw damaged(
          "vector " + ordinal + " claims " + n + " entries over a vocabulary of " + vocabularySize);
    }
    int[] ids = new int[n];
    float[] weights = new float[n];
    for (int i = 0; i < n; i++) {
      ids[i] = in.readInt();
      if (ids[i] < 0 || ids[i] >= vocabularySize || (i > 0 && ids[i] <= ids[i - 1])) {
        throw damaged(
            "vector " + ordinal + " holds ids that are not ascending within the vocabulary");
      }
    }
    for (int i = 0; i < n; i++) {
      weights[i] = in.readFloat();
      if (!Float.isFinite(weights[i])) {
        throw damaged("vector " + ordinal + " holds a NaN or infinite weight");
      }
    }
    committedBytes += recordBytes(n);
    return new SparseDoc(ids, weights);
  }

  private IllegalStateException damaged(String why) {
    return new IllegalStateException("sparse vectors in " + directory + " are damaged: " + why);
  }

  private static long recordBytes(int entries) {
    return Integer.BYTES + (long) entries * (Integer.BYTES + Float.BYTES);
  }

  /** Checks ids (ascending, unique, inside the vocabulary) and weights (finite). */
  public void validate(List<SparseDoc> vectors, String field) {
    for (int v = 0; v < vectors.size(); v++) {
      SparseDoc doc = vectors.get(v);
      String name = field.replace("{i}", Integer.toString(v));
      if (doc == null) {
        throw new InvalidInputException(name, "a sparse vector is required");
      }
      if (doc.ids().length != doc.weights().length) {
        throw new InvalidInputException(
            name,
            "sparse indices and values differ in length ("
                + doc.ids().length
                + " and "
                + doc.weights().length
                + ")");
      }
      for (int i = 0; i < doc.ids().length; i++) {
        if (doc.ids()[i] < 0 || doc.ids()[i] >= vocabularySize) {
          throw new InvalidInputException(
              name,
              "sparse id "
                  + doc.ids()[i]
                  + " is outside the vocabulary [0, "
                  + vocabularySize
                  + ")");
        }
        if (i > 0 && doc.ids()[i] <= doc.ids()[i - 1]) {
          throw new InvalidInputException(
              name, "sparse ids must be strictly ascending (position " + i + ")");
        }
        if (!Float.isFinite(doc.weights()[i])) {
          throw new InvalidInputException(
              name, "sparse vector holds a NaN or infinite weight at position " + i);
        }
      }
    }
  }

  /** Queues vectors; they are written and become visible at {@link #commit()}. */
  public synchronized void append(List<SparseDoc> vectors) {
    pending.addAll(vectors);
  }

  /**
   * Writes the queued records after the committed ones, forces them, then publishes the new count.
   */
  public synchronized void commit() {
    if (pending.isEmpty()) {
      return;
    }
    long position = committedBytes;
    try (FileChannel channel =
        FileChannel.open(
            directory.resolve(DATA), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      for (SparseDoc doc : pending) {
        ByteBuffer record = ByteBuffer.allocate((int) recordBytes(doc.ids().length));
        record.putInt(doc.ids().length);
        for (int id : doc.ids()) {
          record.putInt(id);
        }
        for (float w : doc.weights()) {
          record.putFloat(w);
        }
        record.flip();
        while (record.hasRemaining()) {
          position += channel.write(record, position);
        }
      }
      channel.force(false);
      DurableFiles.replace(
          directory.resolve(COUNT), Integer.toString(docs.size() + pending.size()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot commit sparse vectors in " + directory, e);
    }
    docs.addAll(pending);
    pending.clear();
    committedBytes = position;
  }

  /** Discards queued vectors and anything a failed commit wrote past the committed records. */
  public synchronized void rollback() {
    pending.clear();
    try (FileChannel channel =
        FileChannel.open(
            directory.resolve(DATA), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      channel.truncate(committedBytes);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot roll back sparse vectors in " + directory, e);
    }
  }

  /** Keeps only the first {@code count} committed vectors (durably) and discards queued ones. */
  public synchronized void truncateTo(int count) {
    pending.clear();
    if (count >= docs.size()) {
      rollback();
      return;
    }
    long bytes = 0;
    for (int d = 0; d < count; d++) {
      bytes += recordBytes(docs.get(d).ids().length);
    }
    try {
      // The count first: a crash before the file shrinks leaves records that reopening cuts off.
      DurableFiles.replace(directory.resolve(COUNT), Integer.toString(count));
      docs.subList(count, docs.size()).clear();
      committedBytes = bytes;
      try (FileChannel channel =
          FileChannel.open(directory.resolve(DATA), StandardOpenOption.WRITE)) {
        channel.truncate(bytes);
        channel.force(false);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot truncate sparse vectors in " + directory, e);
    }
  }

  /** Committed vectors. */
  public synchronized int size() {
    return docs.size();
  }

  /** Committed vector {@code ordinal}. */
  public synchronized SparseDoc get(int ordinal) {
    return docs.get(ordinal);
  }

  public synchronized List<SparseDoc> snapshot() {
    return List.copyOf(docs);
  }

  public int vocabularySize() {
    return vocabularySize;
  }

  @Override
  public void close() {}
}
