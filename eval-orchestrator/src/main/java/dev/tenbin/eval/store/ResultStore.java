package dev.tenbin.eval.store;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.tenbin.core.InvalidInputException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The append-only store of finished cells under a job's output folder:
 * {@code cells/<fingerprint>.json.gz} (gzip-compressed JSON; plain {@code .json} cells are read too).
 *
 * <p>A cell is written to a temporary file, forced to disk and renamed into place in one atomic
 * step, so after a crash (even {@code kill -9}) a cell is either wholly present or absent: a
 * resumed job recomputes exactly the absent ones. A present cell is never rewritten.
 */
public final class ResultStore {
  /** The JSON mapping of stored cells (snake_case field names). */
  public static final ObjectMapper JSON =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private final Path cells;

  private ResultStore(Path cells) {
    this.cells = cells;
  }

  /** Opens (creating if needed) the store of the job folder {@code jobDirectory}. */
  public static ResultStore open(Path jobDirectory) {
    Path cells = jobDirectory.resolve("cells");
    try {
      Files.createDirectories(cells);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + cells, e);
    }
    return new ResultStore(cells);
  }

  /** Opens an existing store for reading; a clear error when {@code jobDirectory} holds none. */
  public static ResultStore existing(Path jobDirectory, String field) {
    Path cells = jobDirectory.resolve("cells");
    if (!Files.isDirectory(cells)) {
      throw new InvalidInputException(field, field + " " + jobDirectory + " holds no job results (no cells/ folder)");
    }
    return new ResultStore(cells);
  }

  public Path directory() {
    return cells;
  }

  /** The file a new cell is written to. */
  private Path file(String fingerprint) {
    if (!fingerprint.matches("[0-9a-f]{16,64}")) {
      throw new IllegalArgumentException("not a fingerprint: " + fingerprint);
    }
    return cells.resolve(fingerprint + ".json.gz");
  }

  /** The stored file of a cell, compressed or plain; null when the cell is not stored. */
  public Path storedFile(String fingerprint) {
    Path compressed = file(fingerprint);
    if (Files.isRegularFile(compressed)) {
      return compressed;
    }
    Path plain = cells.resolve(fingerprint + ".json");
    return Files.isRegularFile(plain) ? plain : null;
  }

  public boolean contains(String fingerprint) {
    return storedFile(fingerprint) != null;
  }

  /**
   * Stores a finished cell. Returns false (and writes nothing) when the cell is already stored:
   * a cell is computed at most once per job folder.
   */
  public synchronized boolean append(CellRecord cell) {
    Path target = file(cell.fingerprint());
    if (contains(cell.fingerprint())) {
      return false;
    }
    Path temporary = cells.resolve("." + cell.fingerprint() + "." + UUID.randomUUID() + ".tmp");
    try {
      try (OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(temporary, StandardOpenOption.CREATE_NEW), 1 << 16)) {
        JSON.writeValue(out, cell);
      }
      try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      try {
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, target);
      }
      return true;
    } catch (IOException e) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException ignored) {
        // the temporary file is ignored by readers either way
      }
      throw new UncheckedIOException("cannot store cell " + cell.key().label(), e);
    }
  }

  public Optional<CellRecord> read(String fingerprint) {
    Path path = storedFile(fingerprint);
    return path == null ? Optional.empty() : Optional.of(readFile(path));
  }

  /** Every stored cell, ordered by benchmark, task, system, variant and mode. */
  public List<CellRecord> readAll() {
    List<CellRecord> all = new ArrayList<>();
    try (Stream<Path> files = Files.list(cells)) {
      for (Path path : files.filter(p -> p.getFileName().toString().matches("[0-9a-f]+\\.json(\\.gz)?")).toList()) {
        all.add(readFile(path));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + cells, e);
    }
    all.sort(ORDER);
    return all;
  }

  /** The display order of cells. */
  public static final Comparator<CellRecord> ORDER =
      Comparator.<CellRecord, String>comparing(c -> c.key().benchmark())
          .thenComparing(c -> c.key().task())
          .thenComparing(c -> c.key().system())
          .thenComparing(c -> c.key().variant())
          .thenComparing(c -> c.key().mode())
          .thenComparing(CellRecord::fingerprint);

  private static CellRecord readFile(Path path) {
    try (java.io.InputStream raw = Files.newInputStream(path);
        java.io.InputStream in =
            path.getFileName().toString().endsWith(".gz") ? new java.util.zip.GZIPInputStream(raw, 1 << 16) : raw) {
      return JSON.readValue(in, CellRecord.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read stored cell " + path, e);
    }
  }
}
