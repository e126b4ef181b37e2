package dev.tenbin.eval.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The per-query part of a columnar cell: one Parquet file ({@code <fingerprint>.queries.parquet}),
 * written and read through an in-memory DuckDB database.
 *
 * <p>One row per evaluated query, in stored order: {@code query_index INTEGER} (0-based stored
 * order), {@code query_id VARCHAR}, one {@code DOUBLE} column per metric named as the metric
 * ({@code "ndcg@10"}, {@code "recall@100"}, ...; NULL where a query lacks the metric), and {@code
 * docs STRUCT(rank INTEGER, doc_id VARCHAR, score DOUBLE)[]}: the stored ranking in stored order.
 * Scores are stored as the cell holds them (FP32 values widened exactly to DOUBLE), so they read
 * back bit for bit. A reader that needs only the metrics reads only those columns; the rankings are
 * read only by those that need them (export, hybrid fusion, the warehouse).
 *
 * <p>The file is written single-threaded from rows in a fixed order, so the same cell gives the
 * same bytes with the same DuckDB version; nothing depends on those bytes (a cell's fingerprint is
 * over what it computes, not how it is stored).
 */
final class CellColumns {
  /** The file name suffix after the fingerprint. */
  static final String SUFFIX = ".queries.parquet";

  /** Columns that are not metrics. */
  private static final Set<String> RESERVED = Set.of("query_index", "query_id", "docs");

  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  private CellColumns() {}

  /** An in-memory DuckDB connection for reading or writing cell files; the caller closes it. */
  static DuckDBConnection connect() {
    try {
      return DuckDbConnections.open("jdbc:duckdb:").unwrap(DuckDBConnection.class);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open an in-memory DuckDB database", e);
    }
  }

  /** The metric names of {@code queries}, in first-seen order. */
  static List<String> metricNames(List<StoredQuery> queries) {
    Set<String> names = new LinkedHashSet<>();
    for (StoredQuery query : queries) {
      names.addAll(query.metrics().keySet());
    }
    for (String name : names) {
      if (RESERVED.contains(name)) {
        throw new IllegalStateException("a metric may not be named " + name);
      }
    }
    return List.copyOf(names);
  }

  /** Writes the per-query part of {@code queries} to {@code file} (which must not exist). */
  static void write(List<StoredQuery> queries, Path file) throws IOException {
    List<String> metrics = metricNames(queries);
    try (DuckDBConnection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute("SET threads = 1");
      StringBuilder columns = new StringBuilder("query_index INTEGER, query_id VARCHAR");
      for (String metric : metrics) {
        columns.append(", ").append(identifier(metric)).append(" DOUBLE");
      }
      statement.execute("CREATE TABLE q (" + columns + ")");
      statement.execute(
          "CREATE TABLE d (query_index INTEGER, position INTEGER, rank INTEGER, doc_id VARCHAR,"
              + " score DOUBLE)");
      try (DuckDBAppender q = connection.createAppender("q");
          DuckDBAppender d = connection.createAppender("d")) {
        for (int index = 0; index < queries.size(); index++) {
          StoredQuery query = queries.get(index);
          q.beginRow().append(index).append(query.queryId());
          for (String metric : metrics) {
            Double value = query.metrics().get(metric);
            if (value == null) {
              q.appendNull();
            } else {
              q.append(value.doubleValue());
            }
          }
          q.endRow();
          List<StoredDoc> docs = query.docs();
          for (int position = 0; position < docs.size(); position++) {
            StoredDoc doc = docs.get(position);
            d.beginRow()
                .append(index)
                .append(position)
                .append(doc.rank())
                .append(doc.docId())
                .append(doc.score())
                .endRow();
          }
        }
      }
      statement.execute(
          "COPY (SELECT q.*, coalesce(r.docs,"
              + " []::STRUCT(rank INTEGER, doc_id VARCHAR, score DOUBLE)[]) AS docs FROM q LEFT JOIN"
              + " (SELECT query_index, list(struct_pack(rank := rank, doc_id := doc_id,"
              + " score := score) ORDER BY position) AS docs FROM d GROUP BY query_index) r"
              + " USING (query_index) ORDER BY query_index) TO "
              + literal(file)
              + " (FORMAT parquet, COMPRESSION zstd)");
    } catch (SQLException e) {
      throw new IOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether {@code file} is present and framed as a whole Parquet file (its magic bytes at both
   * ends): a file cut short by a crash or by hand is not.
   */
  static boolean looksWhole(Path file) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size < 2L * MAGIC.length + 4) {
        return false;
      }
      ByteBuffer head = ByteBuffer.allocate(MAGIC.length);
      ByteBuffer tail = ByteBuffer.allocate(MAGIC.length);
      channel.read(head, 0);
      channel.read(tail, size - MAGIC.length);
      return java.util.Arrays.equals(head.array(), MAGIC)
          && java.util.Arrays.equals(tail.array(), MAGIC);
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * Reads the queries of {@code file}: their ids and metrics, and their rankings when {@code
   * withDocs} (otherwise every query's docs are empty).
   *
   * @throws SQLException when the file is missing or not a readable cell file
   */
  static List<StoredQuery> read(Connection connection, Path file, boolean withDocs)
      throws SQLException {
    List<String> ids = new ArrayList<>();
    List<Map<String, Double>> metrics = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT * EXCLUDE (docs) FROM read_parquet("
                    + literal(file)
                    + ") ORDER BY query_index")) {
      ResultSetMetaData meta = rows.getMetaData();
      List<String> names = new ArrayList<>();
      for (int column = 3; column <= meta.getColumnCount(); column++) {
        names.add(meta.getColumnName(column));
      }
      if (!"query_index".equals(meta.getColumnName(1))
          || !"query_id".equals(meta.getColumnName(2))) {
        throw new SQLException("not a cell file: no query_index and query_id columns");
      }
      while (rows.next()) {
        if (rows.getInt(1) != ids.size()) {
          throw new SQLException("query " + ids.size() + " is missing");
        }
        ids.add(rows.getString(2));
        Map<String, Double> values = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
          double value = rows.getDouble(i + 3);
          if (!rows.wasNull()) {
            values.put(names.get(i), value);
          }
        }
        metrics.add(values);
      }
    }
    List<List<StoredDoc>> docs = new ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      docs.add(new ArrayList<>());
    }
    if (withDocs) {
      try (Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT query_index, d.rank, d.doc_id, d.score FROM (SELECT query_index,"
                      + " unnest(docs) AS d, generate_subscripts(docs, 1) AS position FROM"
                      + " read_parquet("
                      + literal(file)
                      + ")) ORDER BY query_index, position")) {
        while (rows.next()) {
          docs.get(rows.getInt(1))
              .add(new StoredDoc(rows.getString(3), rows.getDouble(4), rows.getInt(2)));
        }
      }
    }
    List<StoredQuery> queries = new ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      queries.add(new StoredQuery(ids.get(i), metrics.get(i), docs.get(i)));
    }
    return queries;
  }

  /** A SQL string literal of {@code file}'s path. */
  static String literal(Path file) {
    return "'" + file.toAbsolutePath().toString().replace("'", "''") + "'";
  }

  /** A quoted SQL identifier. */
  static String identifier(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }
}
