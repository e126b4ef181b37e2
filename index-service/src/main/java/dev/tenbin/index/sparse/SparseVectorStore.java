package dev.tenbin.index.sparse;

import dev.tenbin.core.InvalidInputException;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Sparse document vectors of one collection: appended to a file of records (n, ids, weights), with
 * a {@code count} file replaced atomically at commit; records past the committed count are ignored
 * and cut off at reopen. Held in memory for scoring (Nano-sets are small).
 */
public final class SparseVectorStore implements Closeable {
  private final Path directory;
  private final int vocabularySize;
  private final List<SparseDoc> docs = new ArrayList<>();
  private final List<SparseDoc> pending = new ArrayList<>();

  private SparseVectorStore(Path directory, int vocabularySize) throws IOException {
    this.directory = directory;
    this.vocabularySize = vocabularySize;
    Files.createDirectories(directory);
    Path countFile = directory.resolve("count");
    int committed = Files.exists(countFile) ? Integer.parseInt(Files.readString(countFile).trim()) : 0;
    Path data = directory.resolve("sparse.bin");
    if (Files.exists(data)) {
      try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(data)))) {
        for (int d = 0; d < committed; d++) {
          int n = in.readInt();
          int[] ids = new int[n];
          float[] weights = new float[n];
          for (int i = 0; i < n; i++) {
            ids[i] = in.readInt();
          }
          for (int i = 0; i < n; i++) {
            weights[i] = in.readFloat();
          }
          docs.add(new SparseDoc(ids, weights));
        }
      }
    }
    rewrite();
  }

  public static SparseVectorStore open(Path directory, int vocabularySize) {
    try {
      return new SparseVectorStore(directory, vocabularySize);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open sparse vectors in " + directory, e);
    }
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
        throw new InvalidInputException(name, "sparse indices and values differ in length");
      }
      for (int i = 0; i < doc.ids().length; i++) {
        if (doc.ids()[i] < 0 || doc.ids()[i] >= vocabularySize) {
          throw new InvalidInputException(
              name, "sparse id " + doc.ids()[i] + " is outside the vocabulary [0, " + vocabularySize + ")");
        }
        if (i > 0 && doc.ids()[i] <= doc.ids()[i - 1]) {
          throw new InvalidInputException(name, "sparse ids must be strictly ascending");
        }
        if (!Float.isFinite(doc.weights()[i])) {
          throw new InvalidInputException(name, "sparse vector holds a NaN or infinite weight");
        }
      }
    }
  }

  public synchronized void append(List<SparseDoc> vectors) {
    pending.addAll(vectors);
  }

  /** Appends the pending records, forces them to disk, then publishes the new count atomically. */
  public synchronized void commit() {
    try (DataOutputStream out =
        new DataOutputStream(
            new java.io.BufferedOutputStream(
                Files.newOutputStream(directory.resolve("sparse.bin"), StandardOpenOption.CREATE, StandardOpenOption.APPEND)))) {
      for (SparseDoc doc : pending) {
        out.writeInt(doc.ids().length);
        for (int id : doc.ids()) {
          out.writeInt(id);
        }
        for (float w : doc.weights()) {
          out.writeFloat(w);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (var channel = java.nio.channels.FileChannel.open(directory.resolve("sparse.bin"), StandardOpenOption.WRITE)) {
      channel.force(false);
      docs.addAll(pending);
      pending.clear();
      Path tmp = directory.resolve("count.tmp");
      Files.writeString(tmp, Integer.toString(docs.size()));
      Files.move(tmp, directory.resolve("count"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized void truncateTo(int count) {
    while (docs.size() > count) {
      docs.removeLast();
    }
    try {
      rewrite();
      Files.writeString(directory.resolve("count"), Integer.toString(docs.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Rewrites the data file with exactly the committed records (drops an interrupted batch). */
  private void rewrite() throws IOException {
    Path tmp = directory.resolve("sparse.bin.tmp");
    try (DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(tmp)))) {
      for (SparseDoc doc : docs) {
        out.writeInt(doc.ids().length);
        for (int id : doc.ids()) {
          out.writeInt(id);
        }
        for (float w : doc.weights()) {
          out.writeFloat(w);
        }
      }
    }
    Files.move(tmp, directory.resolve("sparse.bin"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
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
