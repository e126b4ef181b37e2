package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardOptions;
import dev.tenbin.eval.positions.PositionSettings;
import dev.tenbin.eval.positions.PositionsView;
import dev.tenbin.eval.store.CellRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The leaderboard files of a job: call {@link #writeAll} when a job ends.
 *
 * <p>Writes {@code leaderboard.html} (self-contained), {@code leaderboard.md} with the two Pareto
 * charts beside it ({@code leaderboard-pareto-bytes.svg}, {@code leaderboard-pareto-latency.svg})
 * and {@code leaderboard.json}; each file is written to a temporary name and renamed into place.
 */
public final class Leaderboards {
  public static final String HTML_FILE = "leaderboard.html";
  public static final String MARKDOWN_FILE = "leaderboard.md";
  public static final String JSON_FILE = "leaderboard.json";
  public static final String BYTES_CHART_FILE = "leaderboard-pareto-bytes.svg";
  public static final String LATENCY_CHART_FILE = "leaderboard-pareto-latency.svg";
  public static final String COST_CHART_FILE = "leaderboard-pareto-cost.svg";

  private Leaderboards() {}

  /**
   * Writes the leaderboard files of {@code cells} into {@code outDir} (created if needed).
   *
   * @return the terminal summary table, for the job's summary (the paired tests are in the files)
   */
  public static String writeAll(List<CellRecord> cells, Path outDir, LeaderboardOptions options) {
    return writeAll(cells, outDir, options, PositionSettings.DEFAULT_REFERENCE);
  }

  /**
   * As {@link #writeAll(List, Path, LeaderboardOptions)}; the HTML page's position view correlates
   * bin profiles with {@code positionsReference}'s.
   */
  public static String writeAll(
      List<CellRecord> cells, Path outDir, LeaderboardOptions options, String positionsReference) {
    LeaderboardOptions kept =
        options.parity().isEmpty()
            ? options.withParity(dev.tenbin.eval.parity.ParityRecord.readAll(outDir))
            : options;
    kept =
        kept.nanoFidelity().isEmpty()
            ? kept.withNanoFidelity(dev.tenbin.eval.nano.NanoFidelityRecord.readAll(outDir))
            : kept;
    Leaderboard board = Leaderboard.of(cells, kept);
    try {
      Files.createDirectories(outDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + outDir, e);
    }
    write(outDir.resolve(BYTES_CHART_FILE), svgFile(LeaderboardCharts.bytesPerVector(board)));
    write(outDir.resolve(LATENCY_CHART_FILE), svgFile(LeaderboardCharts.latency(board)));
    List<String> charts = new java.util.ArrayList<>(List.of(BYTES_CHART_FILE, LATENCY_CHART_FILE));
    String cost = LeaderboardCharts.cost(board);
    if (cost != null) {
      write(outDir.resolve(COST_CHART_FILE), svgFile(cost));
      charts.add(COST_CHART_FILE);
    }
    write(outDir.resolve(MARKDOWN_FILE), MarkdownReport.render(board, charts));
    write(
        outDir.resolve(HTML_FILE),
        HtmlReport.render(board, PositionsView.rows(cells, positionsReference)));
    write(outDir.resolve(JSON_FILE), ReportFormat.JSON.render(board));
    return TerminalTable.summary(board);
  }

  /**
   * Writes one report to {@code file}; for Markdown also its charts beside it ({@code
   * NAME-pareto-bytes.svg}, {@code NAME-pareto-latency.svg}), linked from it.
   */
  public static void write(Leaderboard board, ReportFormat format, Path file) {
    write(board, format, file, List.of());
  }

  /**
   * As {@link #write(Leaderboard, ReportFormat, Path)}; an HTML page also shows {@code positions}
   * (the position view, when not empty).
   */
  public static void write(
      Leaderboard board, ReportFormat format, Path file, List<PositionsView.Row> positions) {
    Path parent = file.toAbsolutePath().getParent();
    try {
      Files.createDirectories(parent);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + parent, e);
    }
    if (format == ReportFormat.MARKDOWN) {
      String stem = file.getFileName().toString().replaceFirst("\\.md$", "");
      String bytes = stem + "-pareto-bytes.svg";
      String latency = stem + "-pareto-latency.svg";
      write(parent.resolve(bytes), svgFile(LeaderboardCharts.bytesPerVector(board)));
      write(parent.resolve(latency), svgFile(LeaderboardCharts.latency(board)));
      List<String> charts = new java.util.ArrayList<>(List.of(bytes, latency));
      String cost = LeaderboardCharts.cost(board);
      if (cost != null) {
        String costFile = stem + "-pareto-cost.svg";
        write(parent.resolve(costFile), svgFile(cost));
        charts.add(costFile);
      }
      write(file, MarkdownReport.render(board, charts));
    } else if (format == ReportFormat.HTML) {
      write(file, HtmlReport.render(board, positions));
    } else {
      write(file, format.render(board));
    }
  }

  /** A standalone SVG file: the inline chart with its styles embedded. */
  static String svgFile(String svg) {
    String style =
        "<style>text{font:11px sans-serif}.axis{stroke:#5a6570}.grid{stroke:#e8ecef}"
            + ".point{fill:#9aa5b1;stroke:#fff}.point.frontier{fill:#d9480f}"
            + ".frontier-line{fill:none;stroke:#d9480f;stroke-width:1.5;stroke-dasharray:4 2}"
            + ".chart-title{font-weight:600;font-size:13px}.point-label{fill:#7a2e0b;font-size:10px}</style>";
    int end = svg.indexOf('>') + 1;
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + svg.substring(0, end)
        + style
        + svg.substring(end)
        + "\n";
  }

  private static void write(Path file, String text) {
    Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
    try {
      Files.writeString(temporary, text, StandardCharsets.UTF_8);
      Files.move(
          temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
