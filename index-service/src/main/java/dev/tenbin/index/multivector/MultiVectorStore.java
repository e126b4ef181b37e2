package dev.tenbin.index.multivector;

import dev.tenbin.core.InvalidInputException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Multi-vector documents stored compactly: each document's token vectors as float32 rows, no
 * padding, in one file rewritten whole at each commit (tmp + atomic rename), so a crash leaves the
 * last committed state. Held in memory for MaxSim (Nano-sets are small).
 */
public final class MultiVectorStore {
  private final Path directory;
  private final int dimension;
  private final List<TokenVectors> docs = new ArrayList<>();
  private final List<TokenVectors> pending = new ArrayList<>();

  private MultiVectorStore(Path directory, int dimension) throws IOException {
    this.directory = directory;
    this.dimension = dimension;
    Files.createDirectories(directory);
    Path data = directory.resolve("multivector.bin");
    if (Files.exists(data)) {
      try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(data)))) {
        int count = in.readInt();
        for (int d = 0; d < count; d++) {
          int tokens = in.readInt();
          float[] values = new float[tokens * dimension];
          for (int i = 0; i < values.length; i++) {
            values[i] = in.readFloat();
          }
          docs.add(new TokenVectors(tokens, values));
        }
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

  public int dimension() {
    return dimension;
  }

  public void validate(List<TokenVectors> vectors, String field) {
    for (int v = 0; v < vectors.size(); v++) {
      TokenVectors doc = vectors.get(v);
      String name = field.replace("{i}", Integer.toString(v));
      if (doc == null || doc.tokens() < 1) {
        throw new InvalidInputException(name, "a multi-vector with at least one token is required");
      }
      if (doc.values().length != doc.tokens() * dimension) {
        throw new InvalidInputException(
            name, "multi-vector holds " + doc.values().length + " values; expected tokens × " + dimension);
      }
      for (float x : doc.values()) {
        if (!Float.isFinite(x)) {
          throw new InvalidInputException(name, "multi-vector holds a NaN or infinite value");
        }
      }
    }
  }

  public synchronized void append(List<TokenVectors> vectors) {
    pending.addAll(vectors);
  }

  public synchronized void commit() {
    List<TokenVectors> all = new ArrayList<>(docs);
    all.addAll(pending);
    write(all);
    docs.addAll(pending);
    pending.clear();
  }

  public synchronized void truncateTo(int count) {
    if (docs.size() > count) {
      docs.subList(count, docs.size()).clear();
      write(docs);
    }
  }

  private void write(List<TokenVectors> all) {
    Path tmp = directory.resolve("multivector.bin.tmp");
    try {
      try (DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(tmp)))) {
        out.writeInt(all.size());
        for (TokenVectors doc : all) {
          out.writeInt(doc.tokens());
          for (float x : doc.values()) {
            out.writeFloat(x);
          }
        }
      }
      Files.move(tmp, directory.resolve("multivector.bin"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public synchronized List<TokenVectors> snapshot() {
    return List.copyOf(docs);
  }
}
