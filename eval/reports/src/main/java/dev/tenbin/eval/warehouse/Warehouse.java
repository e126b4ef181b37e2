package dev.tenbin.eval.warehouse;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionBin;
import dev.tenbin.eval.positions.PositionBucket;
import dev.tenbin.eval.positions.PositionReferences;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.DuckDbConnections;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.store.ResultStore.Rankings;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.scoring.metrics.TieAwareValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * A DuckDB file holding every stored cell of one or more job folders, for ad-hoc SQL over results.
 *
 * <p>Tables (one row per cell, or per cell and name; {@code fingerprint} joins them all):
 *
 * <ul>
 *   <li>{@code cells(fingerprint PK, job_dir, format_version, benchmark, dataset, task, language,
 *       domain, model, family, system, variant, mode, label, finished_at TIMESTAMP (UTC),
 *       num_queries, num_documents, stored_queries)}: the cell key; {@code num_queries} and {@code
 *       num_documents} come from the cell's facts (NULL when absent), {@code stored_queries} counts
 *       its stored per-query results
 *   <li>{@code versions(fingerprint, name, value VARCHAR)}: resolved versions (dataset_sha,
 *       model_revision, ...)
 *   <li>{@code facts(fingerprint, name, value DOUBLE)}
 *   <li>{@code metrics(fingerprint, metric, value DOUBLE)}: mean over the evaluated queries
 *   <li>{@code tie_aware(fingerprint, metric, expected, "min", "max", "range", bias)}
 *   <li>{@code timings(fingerprint, name, value DOUBLE)}: the unit is in the name (_ms, _us)
 *   <li>{@code diagnostics(fingerprint, name, value VARCHAR)}: the value as JSON text ({@code
 *       value::JSON} in SQL)
 *   <li>{@code query_metrics(fingerprint, query_id, metric, value DOUBLE)}
 *   <li>{@code rankings(fingerprint, query_id, rank, doc_id, score DOUBLE)}: the stored top-100
 * </ul>
 *
 * Views: {@code cell_scores} (one row per cell, the main metrics as columns {@code ndcg_at_10},
 * {@code recall_at_100}, ..., plus {@code ndcg_at_10_tie_range} and {@code cell_ms}) and {@code
 * system_summary} (per benchmark, system, variant and mode: tasks, datasets, and nDCG@10 and
 * recall@100 macro-averaged over datasets, each dataset the mean of its tasks).
 *
 * <p>The database is built into a temporary file beside the target and renamed into place, so a
 * failed build leaves the previous file (or none) and never a half database. Rows are loaded in a
 * fixed order (job folders as given, cells in {@link ResultStore#ORDER}, maps in stored order), so
 * a rebuild holds the same content. A fingerprint stored in more than one job folder is loaded
 * once, from the first, with a warning.
 *
 * <p>Every build also records what it was built from in a one-row table {@code
 * warehouse_build(inputs_sha256)}: the SHA-256 of the schema, this build of Tenbin (its version and
 * its jar's size and time), the DuckDB release, and for each job folder its path, the bytes of its
 * {@code job.yaml} (the position settings come from there) and the name, size and SHA-256 of every
 * file in its {@code cells/} ({@link BuildInputs}). {@link #refresh} keeps a file whose record
 * matches the inputs now, which is how a job's warm rerun writes its reports without reloading
 * millions of ranking rows; any changed, added or removed cell file means a build. The record is
 * NULL when the inputs could not be read.
 */
public final class Warehouse {
  private Warehouse() {}

  /**
   * What a build loaded.
   *
   * @param databaseFile the database written
   * @param rowCounts table name to rows loaded, in schema order
   * @param warnings duplicate fingerprints skipped, one line each
   * @param kept whether the file was already built from these very inputs and left as it was
   *     ({@link #refresh})
   */
  public record BuildSummary(
      Path databaseFile, Map<String, Long> rowCounts, List<String> warnings, boolean kept) {
    /** A summary of a build that wrote the file. */
    public BuildSummary(Path databaseFile, Map<String, Long> rowCounts, List<String> warnings) {
      this(databaseFile, rowCounts, warnings, false);
    }
  }

  /**
   * Loads every stored cell of {@code jobDirs} into a new DuckDB file at {@code databaseFile}
   * (replacing it atomically if it exists).
   *
   * @throws InvalidInputException when a job folder holds no {@code cells/} folder or none is given
   */
  public static BuildSummary build(List<Path> jobDirs, Path databaseFile) {
    if (jobDirs.isEmpty()) {
      throw new InvalidInputException("JOB_DIR", "name at least one job folder");
    }
    // Described before any cell is read (they are read as the load reaches them).
    BuildInputs inputs = BuildInputs.of(jobDirs);
    List<Source> sources = new ArrayList<>();
    for (Path jobDir : jobDirs) {
      ResultStore store = ResultStore.existing(jobDir, "JOB_DIR");
      sources.add(new Source(jobDir, store, () -> store.readAll(Rankings.LEFT_IN_FILE)));
    }
    return buildFrom(sources, inputs, databaseFile);
  }

  /**
   * What a warehouse of {@code jobDir} would be built from, described now ({@link BuildInputs}):
   * take it before reading the cells handed to {@link #refresh}, so that a cell stored in between
   * leaves a record that no later description matches, never a file kept without it.
   */
  public static BuildInputs describeInputs(Path jobDir) {
    return BuildInputs.of(List.of(jobDir));
  }

  /**
   * The warehouse of one job folder whose cells the caller read after describing {@code inputs}
   * (with or without the rankings of columnar cells: those are loaded from their Parquet files):
   * the file as it is when it was built from the very same inputs (its {@code warehouse_build}
   * record matches), else built as {@link #build(List, Path)} does.
   */
  public static BuildSummary refresh(
      BuildInputs inputs, List<CellRecord> cells, Path databaseFile) {
    Path jobDir = inputs.jobDirs().getFirst();
    ResultStore store = ResultStore.existing(jobDir, "JOB_DIR");
    Path target = databaseFile.toAbsolutePath().normalize();
    Optional<BuildSummary> kept = keptAsBuilt(inputs, target);
    return kept.isPresent()
        ? kept.get()
        : buildFrom(List.of(new Source(jobDir, store, () -> cells)), inputs, databaseFile);
  }

  /**
   * The warehouse of {@code jobDirs}: the file as it is when it was built from the very same inputs
   * (its {@code warehouse_build} record matches the folders now), else built as {@link #build(List,
   * Path)} does (into a temporary file, renamed into place). A DuckDB file is not appended to: any
   * added, removed or changed job folder means a full build.
   */
  public static BuildSummary refresh(List<Path> jobDirs, Path databaseFile) {
    if (jobDirs.isEmpty()) {
      throw new InvalidInputException("JOB_DIR", "name at least one job folder");
    }
    Optional<BuildSummary> kept =
        keptAsBuilt(BuildInputs.of(jobDirs), databaseFile.toAbsolutePath().normalize());
    return kept.isPresent() ? kept.get() : build(jobDirs, databaseFile);
  }

  /**
   * The summary of {@code target} when it exists and records exactly the inputs {@code inputs}
   * describes; empty when it must be built (missing, unreadable, from a build without a record,
   * other inputs, or inputs that could not be read).
   */
  private static Optional<BuildSummary> keptAsBuilt(BuildInputs inputs, Path target) {
    if (!Files.isRegularFile(target) || inputs.described().isEmpty()) {
      return Optional.empty();
    }
    try (Connection connection = openReadOnly(target);
        Statement statement = connection.createStatement()) {
      String recorded;
      try (ResultSet rows = statement.executeQuery("SELECT inputs_sha256 FROM warehouse_build")) {
        if (!rows.next()) {
          return Optional.empty();
        }
        recorded = rows.getString(1);
      }
      if (!inputs.digest(duckDbVersion(statement)).equals(recorded)) {
        return Optional.empty();
      }
      Map<String, Long> counts = new LinkedHashMap<>();
      for (WarehouseSchema.Table table : WarehouseSchema.TABLES) {
        try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table.name())) {
          rows.next();
          counts.put(table.name(), rows.getLong(1));
        }
      }
      return Optional.of(new BuildSummary(target, counts, List.of(), true));
    } catch (SQLException | RuntimeException e) {
      return Optional.empty(); // not a warehouse this build can read: build it again
    }
  }

  private static String duckDbVersion(Statement statement) throws SQLException {
    try (ResultSet rows = statement.executeQuery("SELECT library_version FROM pragma_version()")) {
      rows.next();
      return rows.getString(1);
    }
  }

  /** A job folder, its store and its stored cells, read when the build reaches them. */
  private record Source(
      Path jobDir, ResultStore store, java.util.function.Supplier<List<CellRecord>> cells) {}

  private static BuildSummary buildFrom(
      List<Source> sources, BuildInputs inputs, Path databaseFile) {
    Path target = databaseFile.toAbsolutePath().normalize();
    Path temporary =
        target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      Files.createDirectories(target.getParent());
      BuildSummary summary;
      try (DuckDBConnection connection = open(temporary)) {
        summary = load(connection, sources, target);
        try (Statement statement = connection.createStatement()) {
          statement.execute("CREATE TABLE warehouse_build (inputs_sha256 VARCHAR)");
          String digest =
              inputs.described().isEmpty() ? null : inputs.digest(duckDbVersion(statement));
          try (var insert = connection.prepareStatement("INSERT INTO warehouse_build VALUES (?)")) {
            insert.setString(1, digest);
            insert.executeUpdate();
          }
          statement.execute("CHECKPOINT");
        }
      }
      try {
        Files.move(
            temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
      }
      return summary;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write warehouse " + target, e);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot build warehouse " + target + ": " + e.getMessage(), e);
    } finally {
      deleteQuietly(temporary);
      deleteQuietly(temporary.resolveSibling(temporary.getFileName() + ".wal"));
    }
  }

  /** A read-only connection to a built warehouse. */
  public static Connection openReadOnly(Path databaseFile) {
    if (!Files.isRegularFile(databaseFile)) {
      throw new InvalidInputException("FILE", "warehouse " + databaseFile + " not found");
    }
    Properties properties = new Properties();
    properties.setProperty("duckdb.read_only", "true");
    try {
      return DuckDbConnections.open("jdbc:duckdb:" + databaseFile.toAbsolutePath(), properties);
    } catch (SQLException e) {
      throw new InvalidInputException(
          "FILE", "cannot open warehouse " + databaseFile + ": " + e.getMessage());
    }
  }

  private static DuckDBConnection open(Path file) throws SQLException {
    return DuckDbConnections.open("jdbc:duckdb:" + file).unwrap(DuckDBConnection.class);
  }

  private static BuildSummary load(DuckDBConnection connection, List<Source> sources, Path target)
      throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (WarehouseSchema.Table table : WarehouseSchema.TABLES) {
        statement.execute(table.ddl());
      }
      for (String view : WarehouseSchema.views()) {
        statement.execute(view);
      }
    }
    Map<String, Path> loadedFrom = new HashMap<>();
    List<String> warnings = new ArrayList<>();
    List<Path> columnarFiles = new ArrayList<>();
    Set<String> columnarMetrics = new LinkedHashSet<>();
    try (Appenders appenders = new Appenders(connection)) {
      for (Source source : sources) {
        Path jobDir = source.jobDir().toAbsolutePath().normalize();
        List<CellRecord> sourceCells = source.cells().get();
        Map<String, PositionAnalysis> positions =
            PositionReferences.byFingerprint(
                sourceCells, PositionSettings.ofJobFolder(jobDir).reference());
        for (CellRecord cell : sourceCells) {
          Path first = loadedFrom.putIfAbsent(cell.fingerprint(), jobDir);
          if (first != null) {
            warnings.add(
                "cell "
                    + cell.fingerprint()
                    + " ("
                    + cell.key().label()
                    + ") of "
                    + jobDir
                    + " is also in "
                    + first
                    + "; loaded once, from "
                    + first);
            continue;
          }
          Optional<Path> columnar = source.store().columnarFile(cell.fingerprint());
          columnar.ifPresent(columnarFiles::add);
          if (columnar.isPresent()) {
            cell.queries().forEach(query -> columnarMetrics.addAll(query.metrics().keySet()));
          }
          appenders.append(jobDir, cell, positions.get(cell.fingerprint()), columnar.isEmpty());
        }
      }
    }
    loadColumnar(connection, columnarFiles, columnarMetrics);
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Statement statement = connection.createStatement()) {
      for (WarehouseSchema.Table table : WarehouseSchema.TABLES) {
        try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table.name())) {
          rows.next();
          counts.put(table.name(), rows.getLong(1));
        }
      }
    }
    return new BuildSummary(target, counts, List.copyOf(warnings));
  }

  /**
   * Loads the per-query metrics and rankings of columnar cells straight from their Parquet files
   * (one scan over all of them; the fingerprint is the file name's), {@code metrics} being the
   * metric columns they hold. DuckDB keeps the files' order and their rows' (insertion order is
   * preserved), so a rebuild loads the same rows in the same order.
   */
  private static void loadColumnar(
      DuckDBConnection connection, List<Path> files, Set<String> metrics) throws SQLException {
    if (files.isEmpty()) {
      return;
    }
    String scan =
        "SELECT regexp_extract(filename, '([0-9a-f]+)\\.queries\\.parquet$', 1) AS"
            + " fingerprint, * EXCLUDE (filename) FROM read_parquet(["
            + String.join(", ", files.stream().map(Warehouse::literal).toList())
            + "], union_by_name = true, filename = true)";
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE TEMPORARY VIEW columnar_queries AS " + scan);
      if (!metrics.isEmpty()) {
        statement.execute(
            "INSERT INTO query_metrics SELECT fingerprint, query_id, metric, value FROM (UNPIVOT"
                + " (SELECT fingerprint, query_index, query_id, "
                + String.join(", ", metrics.stream().map(Warehouse::identifier).toList())
                + " FROM columnar_queries) ON "
                + String.join(", ", metrics.stream().map(Warehouse::identifier).toList())
                + " INTO NAME metric VALUE value)");
      }
      statement.execute(
          "INSERT INTO rankings SELECT fingerprint, query_id, d.rank, d.doc_id, d.score FROM"
              + " (SELECT fingerprint, query_id, unnest(docs) AS d FROM columnar_queries)");
      statement.execute("DROP VIEW columnar_queries");
    }
  }

  private static String literal(Path file) {
    return "'" + file.toAbsolutePath().toString().replace("'", "''") + "'";
  }

  private static String identifier(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** One appender per table, open for the whole load. */
  private static final class Appenders implements AutoCloseable {
    private final DuckDBAppender cells;
    private final DuckDBAppender versions;
    private final DuckDBAppender facts;
    private final DuckDBAppender metrics;
    private final DuckDBAppender tieAware;
    private final DuckDBAppender timings;
    private final DuckDBAppender diagnostics;
    private final DuckDBAppender queryMetrics;
    private final DuckDBAppender rankings;
    private final DuckDBAppender positions;
    private final DuckDBAppender positionBuckets;

    Appenders(DuckDBConnection connection) throws SQLException {
      cells = connection.createAppender("cells");
      versions = connection.createAppender("versions");
      facts = connection.createAppender("facts");
      metrics = connection.createAppender("metrics");
      tieAware = connection.createAppender("tie_aware");
      timings = connection.createAppender("timings");
      diagnostics = connection.createAppender("diagnostics");
      queryMetrics = connection.createAppender("query_metrics");
      rankings = connection.createAppender("rankings");
      positions = connection.createAppender("positions");
      positionBuckets = connection.createAppender("position_buckets");
    }

    /**
     * Loads {@code cell}; {@code analysis} is its position analysis with reference, or null. Its
     * per-query metrics and rankings are loaded from the cell when {@code withQueries}, else the
     * caller loads them from its Parquet file.
     */
    void append(Path jobDir, CellRecord cell, PositionAnalysis analysis, boolean withQueries)
        throws SQLException {
      String fingerprint = cell.fingerprint();
      CellKey key = cell.key();
      Map<String, Double> facts = orEmpty(cell.facts());
      cells
          .beginRow()
          .append(fingerprint)
          .append(jobDir.toString())
          .append(cell.formatVersion())
          .append(key.task().benchmark())
          .append(key.task().dataset())
          .append(key.task().task())
          .append(key.task().language())
          .append(key.task().domain())
          .append(key.system().model())
          .append(key.system().family())
          .append(key.system().name())
          .append(key.variant())
          .append(key.mode().wireName())
          .append(key.label());
      LocalDateTime finished = finishedAt(cell.finishedAt());
      if (finished == null) {
        cells.appendNull();
      } else {
        cells.append(finished);
      }
      appendCount(cells, facts.get("num_queries"));
      appendCount(cells, facts.get("num_documents"));
      cells.append(cell.queries() == null ? 0 : cell.queries().size()).endRow();

      for (var entry : orEmpty(cell.versions()).entrySet()) {
        versions
            .beginRow()
            .append(fingerprint)
            .append(entry.getKey())
            .append(entry.getValue())
            .endRow();
      }
      appendNumbers(this.facts, fingerprint, facts);
      appendNumbers(metrics, fingerprint, orEmpty(cell.metrics()));
      for (var entry : orEmpty(cell.tieAware()).entrySet()) {
        TieAwareValue value = entry.getValue();
        tieAware
            .beginRow()
            .append(fingerprint)
            .append(entry.getKey())
            .append(value.expected())
            .append(value.min())
            .append(value.max())
            .append(value.range())
            .append(value.bias())
            .endRow();
      }
      appendNumbers(timings, fingerprint, orEmpty(cell.timings()));
      for (var entry : orEmpty(cell.diagnostics()).entrySet()) {
        diagnostics
            .beginRow()
            .append(fingerprint)
            .append(entry.getKey())
            .append(json(entry.getValue()))
            .endRow();
      }
      if (analysis != null) {
        appendPositions(fingerprint, analysis);
      }
      if (!withQueries) {
        return;
      }
      for (StoredQuery query : cell.queries() == null ? List.<StoredQuery>of() : cell.queries()) {
        appendNumbersOfQuery(fingerprint, query);
        for (StoredDoc doc : query.docs() == null ? List.<StoredDoc>of() : query.docs()) {
          rankings
              .beginRow()
              .append(fingerprint)
              .append(query.queryId())
              .append(doc.rank())
              .append(doc.docId())
              .append(doc.score())
              .endRow();
        }
      }
    }

    /** The cell's position analysis (as stored, with reference correlations), a row per bin. */
    private void appendPositions(String fingerprint, PositionAnalysis analysis)
        throws SQLException {
      for (PositionBucket bucket : analysis.buckets()) {
        positionBuckets
            .beginRow()
            .append(fingerprint)
            .append(analysis.tokenizer())
            .append(analysis.lengthReference())
            .append(analysis.minCount())
            .append(bucket.minTokens());
        appendInteger(positionBuckets, bucket.maxTokens());
        positionBuckets.append(bucket.queries());
        appendDouble(positionBuckets, bucket.psi());
        appendDouble(positionBuckets, bucket.slope());
        appendDouble(positionBuckets, bucket.pearson());
        appendDouble(positionBuckets, bucket.spearman());
        appendDouble(positionBuckets, bucket.kendall());
        if (analysis.reference() == null) {
          positionBuckets.appendNull();
        } else {
          positionBuckets.append(analysis.reference());
        }
        appendDouble(positionBuckets, bucket.referencePearson());
        positionBuckets.endRow();
        for (PositionBin bin : bucket.bins()) {
          positions.beginRow().append(fingerprint).append(bucket.minTokens());
          appendInteger(positions, bucket.maxTokens());
          positions.append(bin.bin()).append(bin.queries());
          appendDouble(positions, bin.ndcgAt10());
          appendDouble(positions, bin.recallAt100());
          positions.endRow();
        }
      }
    }

    private static void appendInteger(DuckDBAppender appender, Integer value) throws SQLException {
      if (value == null) {
        appender.appendNull();
      } else {
        appender.append(value.intValue());
      }
    }

    private void appendNumbersOfQuery(String fingerprint, StoredQuery query) throws SQLException {
      for (var entry : orEmpty(query.metrics()).entrySet()) {
        queryMetrics.beginRow().append(fingerprint).append(query.queryId()).append(entry.getKey());
        appendDouble(queryMetrics, entry.getValue());
        queryMetrics.endRow();
      }
    }

    private static void appendNumbers(
        DuckDBAppender appender, String fingerprint, Map<String, Double> values)
        throws SQLException {
      for (var entry : values.entrySet()) {
        appender.beginRow().append(fingerprint).append(entry.getKey());
        appendDouble(appender, entry.getValue());
        appender.endRow();
      }
    }

    private static void appendDouble(DuckDBAppender appender, Double value) throws SQLException {
      if (value == null) {
        appender.appendNull();
      } else {
        appender.append(value.doubleValue());
      }
    }

    private static void appendCount(DuckDBAppender appender, Double value) throws SQLException {
      if (value == null) {
        appender.appendNull();
      } else {
        appender.append((int) Math.round(value));
      }
    }

    @Override
    public void close() throws SQLException {
      SQLException failure = null;
      for (DuckDBAppender appender :
          List.of(
              cells,
              versions,
              facts,
              metrics,
              tieAware,
              timings,
              diagnostics,
              queryMetrics,
              rankings,
              positions,
              positionBuckets)) {
        try {
          appender.close();
        } catch (SQLException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  private static <K, V> Map<K, V> orEmpty(Map<K, V> map) {
    return map == null ? Map.of() : map;
  }

  private static String json(Object value) {
    try {
      return ResultStore.JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a diagnostic as JSON", e);
    }
  }

  private static LocalDateTime finishedAt(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return LocalDateTime.ofInstant(Instant.parse(text), ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException ignored) {
      // a leftover temporary file is harmless: its name starts with a dot and ends in .tmp
    }
  }
}
