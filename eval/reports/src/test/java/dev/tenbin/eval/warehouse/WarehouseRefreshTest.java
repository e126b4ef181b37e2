package dev.tenbin.eval.warehouse;

import static dev.tenbin.eval.warehouse.WarehouseJobs.BM25;
import static dev.tenbin.eval.warehouse.WarehouseJobs.DENSE;
import static dev.tenbin.eval.warehouse.WarehouseJobs.OTHER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's warehouse is kept as it is when it records the very inputs its folder has now (the same
 * cell files, job.yaml, schema, Tenbin and DuckDB), and built again on any difference.
 */
class WarehouseRefreshTest {
  @TempDir Path tmp;

  private Path job(String name, CellRecord... cells) {
    return WarehouseJobs.job(tmp, name, cells);
  }

  /** What a job's reports step does: describe the inputs, read the cells, refresh. */
  private static Warehouse.BuildSummary refresh(Path jobDir, Path database) {
    BuildInputs inputs = Warehouse.describeInputs(jobDir);
    List<CellRecord> cells =
        ResultStore.existing(jobDir, "--out").readAll(ResultStore.Rankings.LEFT_IN_FILE);
    return Warehouse.refresh(inputs, cells, database);
  }

  private static long count(Path database, String table) throws SQLException {
    try (Connection connection = Warehouse.openReadOnly(database);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static String record(Path database) throws SQLException {
    try (Connection connection = Warehouse.openReadOnly(database);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT inputs_sha256 FROM warehouse_build")) {
      rows.next();
      return rows.getString(1);
    }
  }

  @Test
  void aRefreshOverUnchangedCellsKeepsTheFileAsItWas() throws Exception {
    Path jobDir = job("job", BM25, DENSE);
    Path database = jobDir.resolve("warehouse.duckdb");
    Warehouse.BuildSummary built = refresh(jobDir, database);
    assertThat(built.kept()).isFalse();
    assertThat(record(database)).hasSize(64);
    byte[] bytes = Files.readAllBytes(database);
    FileTime written = Files.getLastModifiedTime(database);

    Warehouse.BuildSummary again = refresh(jobDir, database);

    assertThat(again.kept()).isTrue();
    assertThat(again.rowCounts()).isEqualTo(built.rowCounts());
    assertThat(again.rowCounts().get("rankings")).isEqualTo(12L);
    assertThat(again.databaseFile()).isEqualTo(built.databaseFile());
    assertThat(Files.getLastModifiedTime(database)).isEqualTo(written);
    assertThat(Files.readAllBytes(database)).isEqualTo(bytes);
  }

  @Test
  void aCellStoredSinceTheBuildIsLoadedByTheNextRefresh() throws Exception {
    Path jobDir = job("job", BM25, DENSE);
    Path database = jobDir.resolve("warehouse.duckdb");
    refresh(jobDir, database);
    ResultStore.existing(jobDir, "--out").append(OTHER);

    Warehouse.BuildSummary summary = refresh(jobDir, database);

    assertThat(summary.kept()).isFalse();
    assertThat(count(database, "cells")).isEqualTo(3);
    assertThat(refresh(jobDir, database).kept()).isTrue();
  }

  @Test
  void aCellFileChangedOrRemovedSinceTheBuildMeansABuildWhateverItsSizeAndTime() throws Exception {
    Path jobDir = job("job", BM25, DENSE, OTHER);
    Path database = jobDir.resolve("warehouse.duckdb");
    refresh(jobDir, database);
    Path header;
    try (Stream<Path> files = Files.list(jobDir.resolve("cells"))) {
      header =
          files
              .filter(f -> f.getFileName().toString().startsWith(BM25.fingerprint()))
              .filter(f -> f.toString().endsWith(".cell.json"))
              .findFirst()
              .orElseThrow();
    }
    // The same JSON with one line break turned into a space: other bytes, same size and time.
    FileTime time = Files.getLastModifiedTime(header);
    String text = Files.readString(header);
    assertThat(text).contains("\n");
    Files.writeString(header, text.replaceFirst("\n", " "));
    Files.setLastModifiedTime(header, time);
    assertThat(Files.size(header))
        .isEqualTo(text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    assertThat(refresh(jobDir, database).kept()).as("changed").isFalse();
    assertThat(refresh(jobDir, database).kept()).isTrue();

    try (Stream<Path> files = Files.list(jobDir.resolve("cells"))) {
      for (Path file : files.filter(f -> f.toString().contains(OTHER.fingerprint())).toList()) {
        Files.delete(file);
      }
    }
    assertThat(refresh(jobDir, database).kept()).as("removed").isFalse();
    assertThat(count(database, "cells")).isEqualTo(2);
  }

  @Test
  void cellsStoredMomentsBeforeTheBuildAreKeptByTheNextRefreshToo() throws Exception {
    Path jobDir = job("job", BM25);
    Path database = jobDir.resolve("warehouse.duckdb");
    ResultStore.existing(jobDir, "--out").append(DENSE);

    assertThat(refresh(jobDir, database).kept()).isFalse();
    assertThat(refresh(jobDir, database).kept()).isTrue();
    assertThat(count(database, "cells")).isEqualTo(2);
  }

  @Test
  void aChangedJobYamlMeansABuild() throws Exception {
    Path jobDir = job("job", BM25, DENSE);
    Files.writeString(jobDir.resolve("job.yaml"), "name: job\n");
    Path database = jobDir.resolve("warehouse.duckdb");
    refresh(jobDir, database);
    assertThat(refresh(jobDir, database).kept()).isTrue();

    Files.writeString(jobDir.resolve("job.yaml"), "name: job\npositions: {min_count: 3}\n");

    assertThat(refresh(jobDir, database).kept()).isFalse();
  }

  @Test
  void theBuildCommandRecordsItsInputsSoARefreshOfTheSameFolderKeepsItsFile() throws Exception {
    Path jobDir = job("job", BM25, DENSE);
    Path database = jobDir.resolve("warehouse.duckdb");
    Warehouse.build(List.of(jobDir), database);
    assertThat(refresh(jobDir, database).kept()).isTrue();

    Path second = job("second", OTHER);
    Warehouse.build(List.of(jobDir, second), database);
    assertThat(count(database, "cells")).isEqualTo(3);
    assertThat(refresh(jobDir, database).kept()).as("built from other folders").isFalse();
    assertThat(count(database, "cells")).isEqualTo(2);
  }

  @Test
  void aFileWithoutARecordOrNotAWarehouseAtAllIsBuiltAgain() throws Exception {
    Path jobDir = job("job", BM25, DENSE);
    Path database = jobDir.resolve("warehouse.duckdb");
    refresh(jobDir, database);
    try (Connection connection = DriverManager.getConnection("jdbc:duckdb:" + database);
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE warehouse_build");
    }
    assertThat(refresh(jobDir, database).kept()).as("an older build's file").isFalse();
    assertThat(refresh(jobDir, database).kept()).isTrue();

    Files.writeString(database, "not a database");
    assertThat(refresh(jobDir, database).kept()).isFalse();
    assertThat(count(database, "cells")).isEqualTo(2);
  }
}
