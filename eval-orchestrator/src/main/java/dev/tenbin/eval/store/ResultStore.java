package dev.tenbin.eval.store;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
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
 * The append-only store of finished cells under a job's output folder: {@code
 * cells/<fingerprint>.json.gz} (gzip-compressed JSON; plain {@code .json} cells are read too).
 *
 * <p>A cell is written to a temporary file, forced to disk and renamed into place in one atomic
 * step, so after a crash (even {@code kill -9}) a cell is either wholly present or absent: a
 * resumed job recomputes exactly the absent ones. A present cell is never rewritten. A cell file
 * damaged afterwards (on disk, or by hand) is refused when read, naming the file, never read as
 * something else.
 */
public final class ResultStore {
  /** The JSON mapping of stored cells (snake_case field names). */
  public static final ObjectMapper JSON =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** Reads stored cells: one JSON value per file, nothing after it. */
  private static final ObjectMapper STRICT =
      JSON.copy().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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
      throw new InvalidInputException(
          field, field + " " + jobDirectory + " holds no job results (no cells/ folder)");
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
   * Stores a finished cell. Returns false (and writes nothing) when the cell is already stored: a
   * cell is computed at most once per job folder.
   */
  public synchronized boolean append(CellRecord cell) {
    Path target = file(cell.fingerprint());
    if (contains(cell.fingerprint())) {
      return false;
    }
    Path temporary = cells.resolve("." + cell.fingerprint() + "." + UUID.randomUUID() + ".tmp");
    try {
      try (OutputStream out =
          new java.util.zip.GZIPOutputStream(
              Files.newOutputStream(temporary, StandardOpenOption.CREATE_NEW), 1 << 16)) {
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
      for (Path path :
          files
              .filter(p -> p.getFileName().toString().matches("[0-9a-f]+\\.json(\\.gz)?"))
              .toList()) {
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
          .thenComparing(c -> c.key().mode().wireName())
          .thenComparing(CellRecord::fingerprint);

  /**
   * Reads a stored cell, refusing one that is damaged: a compressed file is read to its end, so the
   * gzip checksum covers every byte; the JSON must be one complete cell record (every part present,
   * a known mode) whose fingerprint is the file's name.
   *
   * @throws PreconditionException naming the file when it is damaged or not a cell
   */
  private static CellRecord readFile(Path path) {
    String name = path.getFileName().toString();
    boolean compressed = name.endsWith(".gz");
    byte[] json;
    try (java.io.InputStream raw = Files.newInputStream(path)) {
      json = compressed ? gunzip(raw) : raw.readAllBytes();
    } catch (java.util.zip.ZipException | java.io.EOFException e) {
      throw damaged(path, "not a whole gzip file");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read stored cell " + path, e);
    }
    CellRecord cell;
    try {
      cell = STRICT.readValue(json, CellRecord.class);
    } catch (IOException e) {
      throw damaged(path, "not a cell record in JSON");
    }
    String fingerprint = name.substring(0, name.indexOf('.'));
    String problem = problem(cell, fingerprint);
    if (problem != null) {
      throw damaged(path, problem);
    }
    return cell;
  }

  private static byte[] gunzip(java.io.InputStream raw) throws IOException {
    try (java.io.InputStream in = new java.util.zip.GZIPInputStream(raw, 1 << 16)) {
      return in.readAllBytes();
    }
  }

  private static PreconditionException damaged(Path path, String problem) {
    return new PreconditionException(
        null,
        "stored cell "
            + path
            + " is damaged ("
            + problem
            + "); delete it and run the job again to recompute the cell");
  }

  /**
   * What a read cell lacks, or null when it is complete and its fingerprint is {@code fingerprint}.
   */
  private static String problem(CellRecord cell, String fingerprint) {
    if (cell == null) {
      return "no cell record";
    }
    if (cell.formatVersion() != CellRecord.FORMAT_VERSION) {
      return "format version " + cell.formatVersion() + ", expected " + CellRecord.FORMAT_VERSION;
    }
    if (!fingerprint.equals(cell.fingerprint())) {
      return "its fingerprint is not its file name";
    }
    CellKey key = cell.key();
    if (key == null
        || Stream.of(
                key.benchmark(),
                key.dataset(),
                key.task(),
                key.language(),
                key.domain(),
                key.model(),
                key.family(),
                key.variant(),
                key.mode())
            .anyMatch(java.util.Objects::isNull)) {
      return "incomplete key";
    }
    if (cell.versions() == null
        || cell.diagnostics() == null
        || cell.finishedAt() == null
        || hasNulls(cell.facts())
        || hasNulls(cell.metrics())
        || hasNulls(cell.tieAware())
        || hasNulls(cell.timings())
        || cell.versions().containsValue(null)
        || cell.queries() == null) {
      return "a part is missing";
    }
    for (StoredQuery query : cell.queries()) {
      if (query == null
          || query.queryId() == null
          || hasNulls(query.metrics())
          || query.docs() == null
          || query.docs().stream().anyMatch(doc -> doc == null || doc.docId() == null)) {
        return "a query is incomplete";
      }
    }
    return null;
  }

  private static boolean hasNulls(java.util.Map<String, ?> map) {
    return map == null || map.containsValue(null);
  }
}
