package dev.tenbin.eval.taskset;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.scoring.beir.DatasetException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * Reads the rows of a downloaded table file as column name to text (null for a missing or null
 * value): Parquet through DuckDB ({@code read_parquet} on an in-memory database), JSON lines
 * (optionally gzipped) with Jackson, and tab-separated files with a header line.
 */
final class TableReader {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TableReader() {}

  static void read(Path file, Consumer<Map<String, String>> rows) {
    String name = file.getFileName().toString();
    if (name.endsWith(".parquet")) {
      readParquet(file, rows);
    } else if (name.endsWith(".jsonl") || name.endsWith(".jsonl.gz")) {
      readLines(file, rows, false);
    } else if (name.endsWith(".tsv")) {
      readLines(file, rows, true);
    } else {
      throw new DatasetException(
          "cannot read " + file + ": expected .parquet, .jsonl, .jsonl.gz or .tsv");
    }
  }

  private static void readParquet(Path file, Consumer<Map<String, String>> rows) {
    try (Connection duckdb = dev.tenbin.eval.store.DuckDbConnections.open("jdbc:duckdb:");
        PreparedStatement query = duckdb.prepareStatement("SELECT * FROM read_parquet(?)")) {
      query.setString(1, file.toAbsolutePath().toString());
      try (ResultSet result = query.executeQuery()) {
        ResultSetMetaData columns = result.getMetaData();
        while (result.next()) {
          Map<String, String> row = new HashMap<>();
          for (int c = 1; c <= columns.getColumnCount(); c++) {
            Object value = result.getObject(c);
            row.put(columns.getColumnName(c), value == null ? null : value.toString());
          }
          rows.accept(row);
        }
      }
    } catch (SQLException e) {
      throw new DatasetException("cannot read Parquet file " + file + ": " + e.getMessage(), e);
    }
  }

  private static void readLines(
      Path file, Consumer<Map<String, String>> rows, boolean tabSeparated) {
    int lineNumber = 0;
    try (InputStream raw = Files.newInputStream(file);
        InputStream in =
            file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String[] header = null;
      String line;
      while ((line = reader.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        if (!tabSeparated) {
          rows.accept(jsonRow(file, lineNumber, line));
        } else if (header == null) {
          header = line.split("\t", -1);
        } else {
          String[] cells = line.split("\t", -1);
          Map<String, String> row = new HashMap<>();
          for (int c = 0; c < header.length; c++) {
            row.put(header[c].strip(), c < cells.length ? cells[c].strip() : null);
          }
          rows.accept(row);
        }
      }
    } catch (IOException e) {
      throw new DatasetException(
          "cannot read " + file + " (line " + (lineNumber + 1) + "): " + e.getMessage(), e);
    }
  }

  private static Map<String, String> jsonRow(Path file, int lineNumber, String line) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw new DatasetException(
          file + " line " + lineNumber + ": not valid JSON (" + e.getOriginalMessage() + ")");
    }
    if (node == null || !node.isObject()) {
      throw new DatasetException(file + " line " + lineNumber + ": expected a JSON object");
    }
    Map<String, String> row = new HashMap<>();
    node.fields()
        .forEachRemaining(
            field ->
                row.put(
                    field.getKey(), field.getValue().isNull() ? null : field.getValue().asText()));
    return row;
  }
}
