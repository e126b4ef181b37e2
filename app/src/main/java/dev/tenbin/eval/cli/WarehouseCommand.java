package dev.tenbin.eval.cli;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.warehouse.TextTable;
import dev.tenbin.eval.warehouse.Warehouse;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tenbin warehouse}: stored cells of job folders as a DuckDB file ({@code build}), and SQL
 * over it ({@code query}). The schema is described in {@link Warehouse} and docs/warehouse.md.
 */
@Command(
    name = "warehouse",
    mixinStandardHelpOptions = true,
    description =
        "Load job results into a DuckDB file and query them with SQL (schema: docs/warehouse.md).",
    subcommands = {WarehouseCommand.Build.class, WarehouseCommand.Query.class})
public final class WarehouseCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  @Command(
      name = "build",
      mixinStandardHelpOptions = true,
      description = {
        "Load every stored cell of the job folders into a new DuckDB file (replaced atomically).",
        "A cell stored in several job folders is loaded once, from the first named."
      })
  static final class Build implements Callable<Integer> {
    @Parameters(
        arity = "1..*",
        paramLabel = "DIR",
        description = "Job output folders (each holding cells/).")
    List<Path> jobDirs;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        description =
            "The database file (default: JOB_DIR/warehouse.duckdb of the first job folder).")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Path target = out != null ? out : jobDirs.getFirst().resolve("warehouse.duckdb");
      Warehouse.BuildSummary summary = Warehouse.build(jobDirs, target);
      PrintWriter err = spec.commandLine().getErr();
      summary.warnings().forEach(warning -> err.println("tenbin warehouse: warning: " + warning));
      err.flush();
      PrintWriter stdout = spec.commandLine().getOut();
      stdout.println(summary.databaseFile());
      summary
          .rowCounts()
          .forEach((table, rows) -> stdout.printf(Locale.ROOT, "%-14s %10d%n", table, rows));
      stdout.flush();
      return 0;
    }
  }

  @Command(
      name = "query",
      mixinStandardHelpOptions = true,
      description =
          "Run one SQL statement on a warehouse (opened read-only) and print the result as a table.")
  static final class Query implements Callable<Integer> {
    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "A database written by 'tenbin warehouse build'.")
    Path file;

    @Parameters(
        index = "1",
        paramLabel = "SQL",
        description = "The query, e.g. \"SELECT * FROM system_summary\".")
    String sql;

    @Option(
        names = "--max-rows",
        defaultValue = "100",
        paramLabel = "N",
        description = "Rows printed at most (default ${DEFAULT-VALUE}).")
    int maxRows;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (maxRows < 1) {
        throw new InvalidInputException(
            "--max-rows", "--max-rows must be at least 1, got " + maxRows);
      }
      try (Connection connection = Warehouse.openReadOnly(file);
          Statement statement = connection.createStatement()) {
        if (!statement.execute(sql)) {
          throw new InvalidInputException(
              "SQL", "the statement returned no rows (the warehouse is opened read-only)");
        }
        try (ResultSet rows = statement.getResultSet()) {
          PrintWriter stdout = spec.commandLine().getOut();
          stdout.print(TextTable.render(rows, maxRows));
          stdout.flush();
        }
        return 0;
      } catch (SQLException e) {
        throw new InvalidInputException("SQL", "query failed: " + duckDbError(e));
      }
    }
  }

  /**
   * DuckDB's own error of a failed statement: its JDBC driver reports a statement that failed to
   * bind as "Invalid Input Error: Attempting to execute an unsuccessful or closed pending query
   * result" with the real error after it ("Error: Binder Error: ..."); only the real one is shown.
   */
  static String duckDbError(SQLException e) {
    String message = String.valueOf(e.getMessage());
    String wrapper = "Attempting to execute an unsuccessful or closed pending query result";
    int at = message.indexOf(wrapper);
    if (at < 0) {
      return message.strip();
    }
    String rest = message.substring(at + wrapper.length()).strip();
    if (rest.startsWith("Error: ")) {
      rest = rest.substring("Error: ".length());
    }
    return rest.isEmpty() ? message.strip() : rest;
  }
}
