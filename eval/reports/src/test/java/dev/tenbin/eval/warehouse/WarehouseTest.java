package dev.tenbin.eval.warehouse;

import static dev.tenbin.eval.warehouse.WarehouseJobs.BM25;
import static dev.tenbin.eval.warehouse.WarehouseJobs.DENSE;
import static dev.tenbin.eval.warehouse.WarehouseJobs.OTHER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarehouseTest {
  @TempDir Path tmp;

  private Path job(String name, CellRecord... cells) {
    return WarehouseJobs.job(tmp, name, cells);
  }

  private static List<List<Object>> rows(Path database, String sql) throws SQLException {
    try (Connection connection = Warehouse.openReadOnly(database);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      ResultSetMetaData meta = rows.getMetaData();
      List<List<Object>> out = new ArrayList<>();
      while (rows.next()) {
        List<Object> row = new ArrayList<>();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
          row.add(rows.getObject(c));
        }
        out.add(row);
      }
      return out;
    }
  }

  @Test
  void everyPartOfEveryCellLandsInItsTable() throws Exception {
    Path database = tmp.resolve("w.duckdb");
    Warehouse.BuildSummary summary = Warehouse.build(List.of(job("job", BM25, DENSE)), database);

    assertThat(summary.rowCounts())
        .containsEntry("cells", 2L)
        .containsEntry("versions", 4L)
        .containsEntry("facts", 4L)
        .containsEntry("metrics", 20L)
        .containsEntry("tie_aware", 20L)
        .containsEntry("timings", 4L)
        .containsEntry("diagnostics", 4L)
        .containsEntry("query_metrics", 40L)
        .containsEntry("rankings", 12L);
    assertThat(summary.warnings()).isEmpty();
    assertThat(
            rows(
                database,
                "SELECT system, variant, num_queries, num_documents, finished_at::VARCHAR FROM cells ORDER BY system"))
        .containsExactly(
            List.of("bm25", "base", 2, 10, "2025-01-02 03:04:05"),
            List.of("dense:tiny", "int8", 2, 10, "2025-01-02 03:04:05"));
    assertThat(
            rows(
                database,
                "SELECT value FROM metrics WHERE fingerprint = '"
                    + DENSE.fingerprint()
                    + "' AND metric = 'ndcg@10'"))
        .containsExactly(List.of(DENSE.metrics().get("ndcg@10")));
    assertThat(
            rows(
                database,
                "SELECT score FROM rankings WHERE fingerprint = '"
                    + DENSE.fingerprint()
                    + "' AND query_id = 'q2' AND rank = 1"))
        .containsExactly(List.of(DENSE.queries().get(1).docs().getFirst().score()));
    assertThat(
            rows(
                database,
                "SELECT value::JSON->>'bm25' FROM diagnostics WHERE name = 'candidate_origin' AND fingerprint = '"
                    + BM25.fingerprint()
                    + "'"))
        .containsExactly(List.of("3"));
  }

  @Test
  void viewsPivotTheMainMetricsAndAverageSystemsOverDatasets() throws Exception {
    Path database = tmp.resolve("w.duckdb");
    Warehouse.build(List.of(job("job", BM25, DENSE, OTHER)), database);

    assertThat(
            rows(
                database,
                "SELECT ndcg_at_10, recall_at_100, precision_at_10, mrr_at_10 FROM cell_scores WHERE system = 'bm25'"))
        .containsExactly(
            List.of(
                BM25.metrics().get("ndcg@10"),
                BM25.metrics().get("recall@100"),
                BM25.metrics().get("precision@10"),
                BM25.metrics().get("mrr@10")));
    assertThat(
            rows(
                database,
                "SELECT tasks, datasets, ndcg_at_10 FROM system_summary WHERE system = 'dense:tiny'"))
        .containsExactly(
            List.of(2L, 2L, (DENSE.metrics().get("ndcg@10") + OTHER.metrics().get("ndcg@10")) / 2));
  }

  @Test
  void aFingerprintInTwoJobFoldersIsLoadedOnceFromTheFirstWithAWarning() throws Exception {
    Path first = job("first", BM25);
    Path second = job("second", BM25, DENSE);
    Path database = tmp.resolve("w.duckdb");

    Warehouse.BuildSummary summary = Warehouse.build(List.of(first, second), database);

    assertThat(summary.rowCounts()).containsEntry("cells", 2L);
    assertThat(summary.warnings())
        .singleElement()
        .asString()
        .contains(BM25.fingerprint(), "second", "first");
    assertThat(rows(database, "SELECT job_dir FROM cells WHERE system = 'bm25'"))
        .containsExactly(List.of(first.toAbsolutePath().normalize().toString()));
  }

  @Test
  void aRebuildReplacesTheFileWithTheSameContent() throws Exception {
    Path jobDir = job("job", BM25, DENSE);
    Path database = tmp.resolve("w.duckdb");
    String everything = "SELECT * FROM cells ORDER BY fingerprint";
    String ranked = "SELECT * FROM rankings ORDER BY fingerprint, query_id, rank";
    Warehouse.build(List.of(jobDir), database);
    List<List<Object>> cells = rows(database, everything);
    List<List<Object>> rankings = rows(database, ranked);

    Warehouse.build(List.of(jobDir), database);

    assertThat(rows(database, everything)).isEqualTo(cells);
    assertThat(rows(database, ranked)).isEqualTo(rankings);
    try (Stream<Path> files = Files.list(tmp)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("job", "w.duckdb");
    }
  }

  @Test
  void columnarCellsLoadTheSameTablesAndValuesAsLegacyOnes() throws Exception {
    Path legacy = tmp.resolve("legacy");
    Path cellsOfLegacy = Files.createDirectories(legacy.resolve("cells"));
    for (CellRecord cell : List.of(BM25, DENSE, OTHER)) {
      try (var out =
          new java.util.zip.GZIPOutputStream(
              Files.newOutputStream(cellsOfLegacy.resolve(cell.fingerprint() + ".json.gz")))) {
        ResultStore.JSON.writeValue(out, cell);
      }
    }
    Path fromLegacy = tmp.resolve("legacy.duckdb");
    Path fromColumnar = tmp.resolve("columnar.duckdb");
    Path fromMixed = tmp.resolve("mixed.duckdb");
    Warehouse.BuildSummary legacySummary = Warehouse.build(List.of(legacy), fromLegacy);
    Warehouse.BuildSummary columnarSummary =
        Warehouse.build(List.of(job("columnar", BM25, DENSE, OTHER)), fromColumnar);
    Path mixed = job("mixed", BM25, OTHER);
    Files.copy(
        cellsOfLegacy.resolve(DENSE.fingerprint() + ".json.gz"),
        mixed.resolve("cells").resolve(DENSE.fingerprint() + ".json.gz"));
    Warehouse.build(List.of(mixed), fromMixed);

    assertThat(columnarSummary.rowCounts()).isEqualTo(legacySummary.rowCounts());
    assertThat(columnarSummary.rowCounts().get("rankings")).isEqualTo(18L);
    for (WarehouseSchema.Table table : WarehouseSchema.TABLES) {
      String sql =
          table.name().equals("cells")
              ? "SELECT * EXCLUDE (job_dir) FROM cells ORDER BY ALL"
              : "SELECT * FROM " + table.name() + " ORDER BY ALL";
      List<List<Object>> expected = rows(fromLegacy, sql);
      assertThat(rows(fromColumnar, sql)).as(table.name()).isEqualTo(expected);
      assertThat(rows(fromMixed, sql)).as(table.name()).isEqualTo(expected);
    }
    assertThat(rows(fromColumnar, "SELECT score FROM rankings WHERE query_id = 'q2' AND rank = 1"))
        .contains(List.of((double) (2.5946288f + 1f)));
  }

  @Test
  void aFailedBuildLeavesThePreviousDatabaseUntouchedAndNoTemporaryFiles() throws Exception {
    Path database = tmp.resolve("w.duckdb");
    Warehouse.build(List.of(job("job", BM25)), database);
    long size = Files.size(database);
    Path broken = job("broken", DENSE);
    Files.writeString(ResultStore.open(broken).storedFile(DENSE.fingerprint()), "{ not json");

    assertThatThrownBy(() -> Warehouse.build(List.of(tmp.resolve("job"), broken), database))
        .hasMessageContaining(DENSE.fingerprint());

    assertThat(Files.size(database)).isEqualTo(size);
    assertThat(rows(database, "SELECT count(*) FROM cells")).containsExactly(List.of(1L));
    try (Stream<Path> files = Files.list(tmp)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("job", "broken", "w.duckdb");
    }
  }

  @Test
  void aFolderWithoutCellsIsBadInput() {
    assertThatThrownBy(
            () -> Warehouse.build(List.of(tmp.resolve("nothing")), tmp.resolve("w.duckdb")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("holds no job results");
  }
}
