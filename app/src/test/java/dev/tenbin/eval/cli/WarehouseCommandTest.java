package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.testing.EvaluatedCells;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WarehouseCommandTest {
  @TempDir Path tmp;

  private Path job() {
    ResultStore store = ResultStore.open(tmp.resolve("job"));
    CellRecord bm25 =
        EvaluatedCells.cell(
            EvaluatedCells.key("NanoSciFact", "bm25", "bm25", "base"),
            EvaluatedCells.QRELS,
            EvaluatedCells.run(0f));
    store.append(bm25);
    return tmp.resolve("job");
  }

  @Test
  void buildWritesBesideTheJobAndPrintsRowsPerTable() {
    Path jobDir = job();

    CliRunner result = CliRunner.run("warehouse", "build", jobDir.toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(jobDir.resolve("warehouse.duckdb")).isRegularFile();
    assertThat(result.out()).containsPattern("cells +1\n").containsPattern("rankings +6\n");
  }

  @Test
  void queryPrintsATextTable() {
    Path database = tmp.resolve("w.duckdb");
    assertThat(
            CliRunner.run("warehouse", "build", job().toString(), "--out", database.toString())
                .exitCode())
        .isZero();

    CliRunner result =
        CliRunner.run(
            "warehouse",
            "query",
            database.toString(),
            "SELECT system, variant, num_queries FROM cells");

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out())
        .isEqualTo(
            """
            system  variant  num_queries
            ------  -------  -----------
            bm25    base     2
            (1 row)
            """);
  }

  @Test
  void theQueryConnectionIsReadOnly() {
    Path database = tmp.resolve("w.duckdb");
    CliRunner.run("warehouse", "build", job().toString(), "--out", database.toString());

    CliRunner result =
        CliRunner.run("warehouse", "query", database.toString(), "DELETE FROM cells");

    assertThat(result.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(result.err()).contains("tenbin: query failed:").containsIgnoringCase("read-only");
  }

  @Test
  void badSqlAndMissingFilesAreClearUsageErrors() throws Exception {
    Path database = tmp.resolve("w.duckdb");
    CliRunner.run("warehouse", "build", job().toString(), "--out", database.toString());

    CliRunner badSql =
        CliRunner.run("warehouse", "query", database.toString(), "SELECT nope FROM cells");
    CliRunner missing =
        CliRunner.run("warehouse", "query", tmp.resolve("none.duckdb").toString(), "SELECT 1");
    CliRunner noJob = CliRunner.run("warehouse", "build", tmp.resolve("empty").toString());

    assertThat(badSql.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    // One error, DuckDB's own: not the driver's "pending query result" wrapper on top of it.
    assertThat(badSql.err())
        .startsWith("tenbin: query failed: Binder Error:")
        .contains("nope")
        .doesNotContain("pending query result");
    assertThat(missing.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(missing.err()).contains("none.duckdb not found");
    assertThat(noJob.exitCode()).isEqualTo(TenbinCli.EXIT_USAGE);
    assertThat(noJob.err()).contains("holds no job results");
    assertThat(Files.exists(tmp.resolve("empty"))).isFalse();
  }
}
