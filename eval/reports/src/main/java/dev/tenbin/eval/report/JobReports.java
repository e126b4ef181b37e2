package dev.tenbin.eval.report;

import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.job.Price;
import dev.tenbin.eval.leaderboard.Leaderboards;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.warehouse.BuildInputs;
import dev.tenbin.eval.warehouse.Warehouse;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a finished job writes beside its cells: the leaderboards (terminal table on stdout, {@code
 * leaderboard.md}, {@code leaderboard.html}) and the DuckDB warehouse ({@code warehouse.duckdb}).
 * Both are rebuilt from the stored cells, so they can be rebuilt at any time with {@code tenbin
 * report} and {@code tenbin warehouse build}; the warehouse is kept as it is when it was built from
 * the very same cell files ({@link Warehouse#refresh}). Cells stored in the legacy format (gzip
 * JSON) are converted to the columnar one first, so a warm rerun reads only headers and metric
 * columns.
 */
public final class JobReports {
  private JobReports() {}

  public static void write(Path jobDirectory, PrintWriter out, PrintWriter err) {
    ResultStore store = ResultStore.existing(jobDirectory, "--out");
    int converted = store.convertLegacyCells();
    if (converted > 0) {
      err.println(
          "tenbin: converted "
              + converted
              + " cells to the columnar format (originals kept in "
              + store.directory().resolve(ResultStore.LEGACY_FOLDER)
              + ")");
    }
    // Described before the cells are read: see Warehouse.describeInputs.
    BuildInputs warehouseInputs = Warehouse.describeInputs(jobDirectory);
    List<CellRecord> cells = store.readAll(ResultStore.Rankings.LEFT_IN_FILE);
    if (cells.isEmpty()) {
      err.println("tenbin: no stored cells yet; no leaderboard or warehouse written");
      return;
    }
    String table =
        Leaderboards.writeAll(
            cells,
            jobDirectory,
            LeaderboardOptions.defaults()
                .withPrice(Price.ofJobFolder(jobDirectory))
                .withMeasures(
                    JobMeasures.measure(
                        JobMeasures.ofJobFolder(jobDirectory), Map.of(jobDirectory, cells))),
            PositionSettings.ofJobFolder(jobDirectory).reference());
    out.print(table);
    out.flush();
    err.println(
        "tenbin: leaderboards "
            + jobDirectory.resolve(Leaderboards.HTML_FILE)
            + ", "
            + jobDirectory.resolve(Leaderboards.MARKDOWN_FILE));
    var summary =
        Warehouse.refresh(warehouseInputs, cells, jobDirectory.resolve("warehouse.duckdb"));
    summary.warnings().forEach(warning -> err.println("tenbin: warning: " + warning));
    err.println(
        "tenbin: warehouse "
            + summary.databaseFile()
            + " ("
            + summary.rowCounts().getOrDefault("cells", 0L)
            + " cells"
            + (summary.kept() ? ", unchanged: built from these very cell files" : "")
            + ")");
  }
}
