package dev.tenbin.index.multivector;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.storage.DurableFiles;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Multi-vector documents stored compactly: each document's token vectors as float32 rows, no
 * padding, in one file ({@code multivector.bin}: count, then per document its token count and
 * values) rewritten whole at each commit (temporary file, forced, atomic rename), so a crash leaves
 * the last committed state. {@link #append} only queues; {@link #rollback} drops the queue. A file
 * that is short or holds impossible shapes is reported as damaged. Held in memory for MaxSim
 * (Nano-sets are small).
 */
public final class MultiVectorStore implements Closeable {
  private static final String DATA = "multivector.bin";

  private final Path directory;
  private final int dimension;
  private final List<TokenVectors> docs = new ArrayList<>();
  private final List<TokenVectors> pending = new ArrayList<>();

  private MultiVectorStore(Path directory, int dimension) throws IOException {
    this.directory = directory;
    this.dimension = dimension;
    Files.createDirectories(directory);
    Path data = directory.resolve(DATA);
    if (Files.exists(data)) {
      long remaining = Files.size(data);
      try (DataInputStream in =
          new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(data)))) {
        int count = in.readInt();
        remaining -= Integer.BYTES;
        long smallest = Integer.BYTES + (long) dimension * Float.BYTES;
        if (count < 0 || count > remaining / smallest) {
          throw damaged(
              "it claims "
                  + count
                  + " documents, more than its "
                  + (remaining + 4)
                  + " bytes can hold");
        }
        for (int d = 0; d < count; d++) {
          int tokens = in.readInt();
          remaining -= Integer.BYTES;
          long values = (long) tokens * dimension;
          if (tokens < 1 || values * Float.BYTES > remaining) {
            throw damaged(
                "document " + d + " claims " + tokens + " tokens, which the file cannot hold");
          }
          float[] vector = new float[(int) values];
          for (int i = 0; i < vector.length; i++) {
            vector[i] = in.readFloat();
          }
          remaining -= values * Float.BYTES;
          docs.add(new TokenVectors(tokens, vector));
        }
      } catch (EOFException e) {
        throw damaged(DATA + " ends early");
      }
    }
  }

  public static MultiVectorStore open(Path directory, int dimension) {
    try {
      return new MultiVectorStore(directory, dimension);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open multi-vectors in " + directory, e);
    }
  }

  private IllegalStateException damaged(String why) {
    return new IllegalStateException("multi-vectors in " + directory + " are damaged: " + why);
  }

  public int dimension() {
    return dimension;
  }

  /** Checks shape (at least one token, tokens × dimension values) and finiteness. */
  public void validate(List<TokenVectors> vectors, String field) {
    for (int v = 0; v < vectors.size(); v++) {
      TokenVectors doc = vectors.get(v);
      String name = field.replace("{i}", Integer.toString(v));
      if (doc == null || doc.tokens() < 1) {
        throw new InvalidInputException(name, "a multi-vector with at least one token is required");
      }
      if (doc.values().length != (long) doc.tokens() * dimension) {
        throw new InvalidInputException(
            name,
            "multi-vector holds "
                + doc.values().length
                + " values; expected token_count × dimension = "
                + doc.tokens()
                + " × "
                + dimension);
      }
      for (int i = 0; i < doc.values().length; i++) {
        if (!Float.isFinite(doc.values()[i])) {
          throw new InvalidInputException(
              name, "multi-vector holds a NaN or infinite value at position " + i);
        }
      }
    }
  }

  /** Queues vectors; they are written and become visible at {@link #commit()}. */
  public synchronized void append(List<TokenVectors> vectors) {
    pending.addAll(vectors);
  }

  /** Rewrites the file with the committed and queued vectors, atomically and durably. */
  public synchronized void commit() {
    if (pending.isEmpty()) {
      return;
    }
    List<TokenVectors> all = new ArrayList<>(docs.size() + pending.size());
    all.addAll(docs);
    all.addAll(pending);
    write(all);
    docs.addAll(pending);
    pending.clear();
  }

  /** Discards queued vectors. */
  public synchronized void rollback() {
    pending.clear();
  }

  /** Keeps only the first {@code count} committed vectors (durably) and discards queued ones. */
  public synchronized void truncateTo(int count) {
    pending.clear();
    if (docs.size() > count) {
      write(docs.subList(0, count));
      docs.subList(count, docs.size()).clear();
    }
  }

  private void write(List<TokenVectors> all) {
    try {
      DurableFiles.replace(
          directory.resolve(DATA),
          stream -> {
            DataOutputStream out = new DataOutputStream(stream);
            out.writeInt(all.size());
            for (TokenVectors doc : all) {
              out.writeInt(doc.tokens());
              for (float x : doc.values()) {
                out.writeFloat(x);
              }
            }
            out.flush();
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write multi-vectors in " + directory, e);
    }
  }

  /** Committed documents. */
  public synchronized int size() {
    return docs.size();
  }

  /** Committed token vectors of document {@code ordinal}. */
  public synchronized TokenVectors get(int ordinal) {
    return docs.get(ordinal);
  }

  public synchronized List<TokenVectors> snapshot() {
    return List.copyOf(docs);
  }

  @Override
  public void close() {}
}
