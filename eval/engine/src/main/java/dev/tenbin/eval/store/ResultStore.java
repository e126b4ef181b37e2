package dev.tenbin.eval.store;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The append-only store of finished cells under a job's output folder.
 *
 * <p>A cell is stored columnar: a small JSON header {@code cells/<fingerprint>.cell.json} (the
 * cell's identity, versions, facts, mean metrics, tie-aware values, timings, diagnostics and finish
 * time, with a {@code "columnar"} part naming the Parquet file and counting its queries and
 * documents) beside {@code cells/<fingerprint>.queries.parquet} (per query: its metrics and stored
 * ranking; see {@link CellColumns}). Readers that need only the aggregates and per-query metrics
 * ({@link Rankings#LEFT_IN_FILE}: leaderboards, bootstrap, reports) never read the rankings; the
 * warehouse loads them straight from the Parquet files.
 *
 * <p>Cells stored before (legacy: {@code cells/<fingerprint>.json.gz}, gzip-compressed JSON with
 * the queries inline, or plain {@code .json}) are read too, and {@link #convertLegacyCells()}
 * converts them, keeping each original under {@code cells/legacy/}.
 *
 * <p>Each file is written to a temporary file, forced to disk and renamed into place in one atomic
 * step; the Parquet file first, the header last, so after a crash (even {@code kill -9}) a cell is
 * either wholly present or absent: a resumed job recomputes exactly the absent ones. A header whose
 * Parquet file is missing or cut short counts as absent (the job recomputes the cell, replacing
 * both); reading it is refused naming the file. A present cell is never rewritten. A cell file
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

  /** The file name suffix of a columnar cell's header. */
  static final String HEADER_SUFFIX = ".cell.json";

  /** The header field describing the Parquet part. */
  private static final String COLUMNAR = "columnar";

  /** The folder under {@code cells/} keeping converted legacy cells. */
  public static final String LEGACY_FOLDER = "legacy";

  private static final java.util.regex.Pattern HEADER_NAME =
      java.util.regex.Pattern.compile("([0-9a-f]{16,64})\\.cell\\.json");
  private static final java.util.regex.Pattern LEGACY_NAME =
      java.util.regex.Pattern.compile("([0-9a-f]{16,64})\\.json(\\.gz)?");

  /** What a read of stored cells includes. */
  public enum Rankings {
    /** Every query with its stored ranking. */
    INCLUDED,
    /**
     * The rankings of columnar cells stay in their Parquet files (their queries have empty docs;
     * see {@link #columnarFile(String)}); legacy cells hold theirs, parsed with the rest.
     */
    LEFT_IN_FILE
  }

  /**
   * The Parquet part of a columnar cell, as its header describes it.
   *
   * @param file the Parquet file's name, beside the header
   * @param queries stored queries (rows)
   * @param docs stored ranked documents over all queries
   */
  private record ColumnarPart(String file, int queries, long docs) {}

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

  private static String checked(String fingerprint) {
    if (!fingerprint.matches("[0-9a-f]{16,64}")) {
      throw new IllegalArgumentException("not a fingerprint: " + fingerprint);
    }
    return fingerprint;
  }

  /** The header file of a columnar cell. */
  private Path header(String fingerprint) {
    return cells.resolve(checked(fingerprint) + HEADER_SUFFIX);
  }

  /** The Parquet file of a columnar cell (present or not). */
  private Path parquet(String fingerprint) {
    return cells.resolve(checked(fingerprint) + CellColumns.SUFFIX);
  }

  /** The stored legacy file of a cell, compressed or plain; null when there is none. */
  private Path legacyFile(String fingerprint) {
    Path compressed = cells.resolve(checked(fingerprint) + ".json.gz");
    if (Files.isRegularFile(compressed)) {
      return compressed;
    }
    Path plain = cells.resolve(fingerprint + ".json");
    return Files.isRegularFile(plain) ? plain : null;
  }

  /**
   * The stored file of a cell: its header when columnar, else its legacy file; null when the cell
   * is not stored. Deleting it makes the cell absent.
   */
  public Path storedFile(String fingerprint) {
    Path header = header(fingerprint);
    return Files.isRegularFile(header) ? header : legacyFile(fingerprint);
  }

  /**
   * The Parquet file of a cell stored columnar (present when its header is), empty for a legacy or
   * absent cell.
   */
  public Optional<Path> columnarFile(String fingerprint) {
    return Files.isRegularFile(header(fingerprint))
        ? Optional.of(parquet(fingerprint))
        : Optional.empty();
  }

  /**
   * Whether the cell is stored: a header with a whole Parquet file beside it, or a legacy file. A
   * header whose Parquet file is missing or cut short is not, so a job recomputes that cell.
   */
  public boolean contains(String fingerprint) {
    if (Files.isRegularFile(header(fingerprint))) {
      return CellColumns.looksWhole(parquet(fingerprint));
    }
    return legacyFile(fingerprint) != null;
  }

  /**
   * Stores a finished cell. Returns false (and writes nothing) when the cell is already stored: a
   * cell is computed at most once per job folder.
   */
  public synchronized boolean append(CellRecord cell) {
    if (contains(cell.fingerprint())) {
      return false;
    }
    writeColumnar(cell);
    return true;
  }

  /**
   * Writes {@code cell} columnar: the Parquet file, then the header, each atomically, replacing a
   * damaged or orphaned earlier pair.
   */
  private void writeColumnar(CellRecord cell) {
    String fingerprint = cell.fingerprint();
    Path parquet = parquet(fingerprint);
    Path parquetTemporary = temporary(fingerprint);
    Path headerTemporary = temporary(fingerprint);
    try {
      CellColumns.write(cell.queries(), parquetTemporary);
      force(parquetTemporary);
      moveIntoPlace(parquetTemporary, parquet);
      long docs = cell.queries().stream().mapToLong(q -> q.docs().size()).sum();
      ObjectNode header = JSON.valueToTree(cell);
      header.remove("queries");
      header.set(
          COLUMNAR,
          JSON.valueToTree(
              new ColumnarPart(parquet.getFileName().toString(), cell.queries().size(), docs)));
      try (OutputStream out =
          Files.newOutputStream(headerTemporary, StandardOpenOption.CREATE_NEW)) {
        JSON.writerWithDefaultPrettyPrinter().writeValue(out, header);
      }
      force(headerTemporary);
      moveIntoPlace(headerTemporary, header(fingerprint));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot store cell " + cell.key().label(), e);
    } finally {
      deleteQuietly(parquetTemporary);
      deleteQuietly(headerTemporary);
    }
  }

  private Path temporary(String fingerprint) {
    return cells.resolve("." + fingerprint + "." + UUID.randomUUID() + ".tmp");
  }

  private static void force(Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
  }

  private static void moveIntoPlace(Path temporary, Path target) throws IOException {
    try {
      Files.move(
          temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a leftover temporary file is ignored by readers either way
    }
  }

  /**
   * Converts every legacy cell to a columnar one, the original kept (byte for byte) as {@code
   * cells/legacy/<name>}. Crash-safe: the columnar files are complete before the original is moved
   * (a cell with both is read columnar), and a conversion cut short is finished by the next call. A
   * damaged legacy cell is refused as {@link #read} refuses it.
   *
   * @return the cells converted
   */
  public synchronized int convertLegacyCells() {
    int converted = 0;
    for (String fingerprint : fingerprints(LEGACY_NAME)) {
      Path original = legacyFile(fingerprint);
      if (original == null) {
        continue;
      }
      boolean columnarWhole =
          Files.isRegularFile(header(fingerprint)) && CellColumns.looksWhole(parquet(fingerprint));
      if (!columnarWhole) {
        CellRecord cell;
        try {
          cell = readLegacy(original);
        } catch (UncheckedIOException e) {
          if (e.getCause() instanceof NoSuchFileException) {
            continue; // converted meanwhile by another process
          }
          throw e;
        }
        writeColumnar(cell);
        converted++;
      }
      Path kept = cells.resolve(LEGACY_FOLDER).resolve(original.getFileName());
      try {
        Files.createDirectories(kept.getParent());
        if (!Files.exists(kept)) {
          Files.move(original, kept, StandardCopyOption.ATOMIC_MOVE);
        }
      } catch (NoSuchFileException e) {
        // moved meanwhile by another process
      } catch (IOException e) {
        throw new UncheckedIOException("cannot move " + original + " to " + kept, e);
      }
    }
    return converted;
  }

  /** Reads a whole cell, rankings included. */
  public Optional<CellRecord> read(String fingerprint) {
    if (Files.isRegularFile(header(fingerprint))) {
      try (Connection connection = CellColumns.connect()) {
        return Optional.of(readColumnar(connection, fingerprint, Rankings.INCLUDED));
      } catch (SQLException e) {
        throw new IllegalStateException("cannot close a DuckDB connection", e);
      }
    }
    Path path = legacyFile(fingerprint);
    return path == null ? Optional.empty() : Optional.of(readLegacy(path));
  }

  /** Every stored cell with its rankings, ordered by {@link #ORDER}. */
  public List<CellRecord> readAll() {
    return readAll(Rankings.INCLUDED);
  }

  /** Every stored cell, ordered by {@link #ORDER}; {@code rankings} says whether with rankings. */
  public List<CellRecord> readAll(Rankings rankings) {
    Set<String> columnar = new java.util.LinkedHashSet<>(fingerprints(HEADER_NAME));
    List<CellRecord> all = new ArrayList<>();
    try (Connection connection = CellColumns.connect()) {
      for (String fingerprint : columnar) {
        all.add(readColumnar(connection, fingerprint, rankings));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot close a DuckDB connection", e);
    }
    for (String fingerprint : fingerprints(LEGACY_NAME)) {
      if (columnar.contains(fingerprint)) {
        continue;
      }
      Path path = legacyFile(fingerprint);
      if (path == null) {
        continue;
      }
      try {
        all.add(readLegacy(path));
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof NoSuchFileException)) {
          throw e;
        }
        // converted meanwhile by another process
        read(fingerprint).ifPresent(all::add);
      }
    }
    all.sort(ORDER);
    return all;
  }

  /** The fingerprints of the files directly under {@code cells/} whose names match {@code name}. */
  private List<String> fingerprints(java.util.regex.Pattern name) {
    Set<String> found = new java.util.TreeSet<>();
    try (Stream<Path> files = Files.list(cells)) {
      files.forEach(
          path -> {
            var matcher = name.matcher(path.getFileName().toString());
            if (matcher.matches()) {
              found.add(matcher.group(1));
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + cells, e);
    }
    return List.copyOf(found);
  }

  /**
   * Reads a columnar cell: its header, and from its Parquet file the queries' metrics (and rankings
   * when {@code rankings} is {@link Rankings#INCLUDED}).
   *
   * @throws PreconditionException naming the file that is damaged or missing
   */
  private CellRecord readColumnar(Connection connection, String fingerprint, Rankings rankings) {
    Path headerFile = header(fingerprint);
    ObjectNode header;
    try {
      JsonNode node = STRICT.readTree(Files.readAllBytes(headerFile));
      if (!(node instanceof ObjectNode object)) {
        throw damaged(headerFile, "not a cell header in JSON");
      }
      header = object;
    } catch (NoSuchFileException e) {
      throw damaged(headerFile, "missing");
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw damaged(headerFile, "not a cell header in JSON");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read stored cell " + headerFile, e);
    }
    JsonNode part = header.remove(COLUMNAR);
    ColumnarPart columnar;
    CellRecord cell;
    try {
      columnar = part == null ? null : JSON.treeToValue(part, ColumnarPart.class);
      header.set("queries", JSON.createArrayNode());
      cell = STRICT.treeToValue(header, CellRecord.class);
    } catch (IOException e) {
      throw damaged(headerFile, "not a cell header in JSON");
    }
    if (columnar == null
        || !parquet(fingerprint).getFileName().toString().equals(columnar.file())) {
      throw damaged(headerFile, "it names no columnar file " + parquet(fingerprint).getFileName());
    }
    String problem = problem(cell, fingerprint);
    if (problem != null) {
      throw damaged(headerFile, problem);
    }
    Path parquet = parquet(fingerprint);
    if (!CellColumns.looksWhole(parquet)) {
      throw damagedColumns(
          parquet, Files.exists(parquet) ? "not a whole Parquet file" : "missing", headerFile);
    }
    List<StoredQuery> queries;
    try {
      queries = CellColumns.read(connection, parquet, rankings == Rankings.INCLUDED);
    } catch (SQLException e) {
      throw damagedColumns(parquet, "not a readable cell file: " + e.getMessage(), headerFile);
    }
    if (queries.size() != columnar.queries()) {
      throw damagedColumns(
          parquet,
          queries.size() + " queries where its header counts " + columnar.queries(),
          headerFile);
    }
    if (rankings == Rankings.INCLUDED) {
      long docs = queries.stream().mapToLong(q -> q.docs().size()).sum();
      if (docs != columnar.docs()) {
        throw damagedColumns(
            parquet,
            docs + " ranked documents where its header counts " + columnar.docs(),
            headerFile);
      }
    }
    return withQueries(cell, queries);
  }

  private static CellRecord withQueries(CellRecord cell, List<StoredQuery> queries) {
    return new CellRecord(
        cell.formatVersion(),
        cell.fingerprint(),
        cell.key(),
        cell.versions(),
        cell.facts(),
        cell.metrics(),
        cell.tieAware(),
        cell.timings(),
        cell.diagnostics(),
        queries,
        cell.finishedAt());
  }

  private static PreconditionException damagedColumns(Path parquet, String problem, Path header) {
    return new PreconditionException(
        null,
        "stored cell file "
            + parquet
            + " is damaged or missing ("
            + problem
            + "); run the job again to recompute the cell (its header "
            + header.getFileName()
            + " is replaced with it)");
  }

  /** The display order of cells. */
  public static final Comparator<CellRecord> ORDER =
      Comparator.<CellRecord, String>comparing(c -> c.key().task().benchmark())
          .thenComparing(c -> c.key().task().task())
          .thenComparing(c -> c.key().system().name())
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
  private static CellRecord readLegacy(Path path) {
    String name = path.getFileName().toString();
    boolean compressed = name.endsWith(".gz");
    byte[] json;
    try (java.io.InputStream raw = Files.newInputStream(path)) {
      json = compressed ? gunzip(raw) : raw.readAllBytes();
    } catch (NoSuchFileException e) {
      throw new UncheckedIOException("cannot read stored cell " + path, e);
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
    if (cell.key() == null) {
      return "no key";
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
