package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.ChosenMeasures;
import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.nano.NanoFidelityRecord;
import dev.tenbin.eval.parity.ParityRecord;
import dev.tenbin.eval.store.TaskRef;
import java.util.ArrayList;
import java.util.List;

/**
 * The leaderboard as Markdown: the main table (with bootstrap interval, swap probability, rank
 * interval, tied-for-first marker and Borda) and the tied-for-first line, the Bradley–Terry view of
 * per-query wins, the per-task table, the paired tests of each task, links to the Pareto charts
 * when they were written beside it, and the correlation with the official ranking.
 */
public final class MarkdownReport {
  static final String TIE_MARK = " ⚠";

  private MarkdownReport() {}

  /**
   * Renders the report.
   *
   * @param chartFiles file names of the bytes-per-vector and latency charts, relative to the
   *     Markdown file, or an empty list to leave the charts out
   */
  public static String render(Leaderboard board, List<String> chartFiles) {
    StringBuilder md = new StringBuilder("# Tenbin leaderboard\n\n");
    md.append(escape(ReportText.title(board))).append("\n\n");
    SummaryTable summary = SummaryTable.of(board, TIE_MARK, true);
    table(md, summary.header, summary.rows, summary.numeric);
    md.append('\n').append(escape(ReportText.footnote(board, TIE_MARK.strip()))).append("\n\n");
    String tiedForFirst = ReportText.tiedForFirst(board);
    if (tiedForFirst != null) {
      md.append(escape(tiedForFirst)).append("\n\n");
    }
    if (board.correlation() != null) {
      md.append(escape(ReportText.correlation(board.correlation()))).append("\n\n");
    }
    preference(md, board);
    if (!chartFiles.isEmpty()) {
      md.append("## Pareto frontiers\n\n");
      for (String file : chartFiles) {
        md.append("![Pareto frontier](")
            .append(file.replace(" ", "%20").replace(")", "%29"))
            .append(")\n\n");
      }
    }
    md.append("## Per task\n\n");
    perTask(md, board);
    nanoFidelity(md, board);
    chosenMeasures(md, board);
    paired(md, board);
    parity(md, board);
    memory(md, board);
    latency(md, board);
    return md.toString();
  }

  /**
   * How well each task that runs on a Nano-set ranks systems as its full collection does ({@code
   * tenbin nano fidelity --record}), so a reader weighs that task's differences by it.
   */
  private static void nanoFidelity(StringBuilder md, Leaderboard board) {
    List<String> lines = new ArrayList<>();
    for (TaskRef task : board.tasks()) {
      for (NanoFidelityRecord record : board.options().nanoFidelity()) {
        if (record.task().equals(task.id())) {
          lines.add("- " + escape(task.id()) + " is a Nano-set: " + escape(record.summary()) + ".");
        }
      }
    }
    if (lines.isEmpty()) {
      return;
    }
    md.append("\n## Nano-set fidelity\n\n");
    lines.forEach(line -> md.append(line).append('\n'));
    md.append(
        "\nMeasured by tenbin nano fidelity on runs of the Nano-set and of its full collection;"
            + " Δ is Nano − full (× 100) with a paired 95% interval over the shared queries.\n");
  }

  /**
   * The measures the job chose ({@code measures:} in its spec, or {@code tenbin report --measure}):
   * one table per measure, rows by tasks, as {@code trec_eval -c} prints them (4 decimals), with
   * the tie-aware expectation beside a value that tied scores could move.
   */
  private static void chosenMeasures(StringBuilder md, Leaderboard board) {
    ChosenMeasures chosen = board.options().measures();
    if (chosen == null) {
      return;
    }
    md.append("\n## Chosen measures\n\n");
    md.append(
            escape(
                "trec_eval -c -m "
                    + String.join(" -m ", chosen.specs())
                    + " on each cell's stored ranking and its job's judgments (judgments/DATASET_SHA.qrels;"
                    + " tenbin export trec writes the ranking as a run file). In parentheses: the"
                    + " tie-aware expectation, where tied scores could change the value."))
        .append('\n');
    for (String name : chosen.names()) {
      md.append("\n### ").append(escape(name)).append("\n\n");
      rowsByTask(
          md,
          board,
          (row, task) -> {
            ChosenMeasures.Value value =
                chosen
                    .values()
                    .getOrDefault(row.key(), java.util.Map.of())
                    .getOrDefault(task, java.util.Map.of())
                    .get(name);
            return value == null ? Numbers.ABSENT : Numbers.measure(value);
          });
    }
    if (chosen.unmeasured() > 0) {
      md.append(
          "\n"
              + chosen.unmeasured()
              + (chosen.unmeasured() == 1 ? " cell is" : " cells are")
              + " not measured (–): its job folder keeps no judgments for its dataset (a job run"
              + " before they were kept; run it again to keep them).\n");
    }
  }

  /** The serving-parity certificates the jobs keep (tenbin parity --out JOB/parity/NAME.json). */
  private static void parity(StringBuilder md, Leaderboard board) {
    List<ParityRecord> certificates = board.options().parity();
    if (certificates.isEmpty()) {
      return;
    }
    md.append("\n## Serving parity\n\n");
    List<List<String>> rows = new ArrayList<>();
    for (ParityRecord c : certificates) {
      rows.add(
          List.of(
              c.dataset(),
              c.a(),
              c.b(),
              Numbers.delta(c.delta())
                  + " ("
                  + Numbers.delta(c.deltaLow())
                  + " to "
                  + Numbers.delta(c.deltaHigh())
                  + ")",
              c.randomizationP() == null ? Numbers.ABSENT : PairedTables.p(c.randomizationP()),
              c.top10ChangedAsSet() + " / " + c.top10ChangedInOrder() + " of " + c.queries(),
              c.documentMinCosine() == null
                  ? Numbers.ABSENT
                  : String.format(
                      java.util.Locale.ROOT,
                      "%.4f / %.4f",
                      c.documentMinCosine(),
                      c.documentMeanCosine()),
              c.identical() ? "identical" : "differs"));
    }
    table(
        md,
        List.of(
            "dataset",
            "A",
            "B",
            "Δ nDCG@10 B−A (95% CI)",
            "p rand",
            "top 10 changed (set / order)",
            "document cosine min / mean",
            "vectors"),
        rows,
        List.of(false, false, false, true, true, true, true, false));
    md.append(
        "\nEach row is a `tenbin parity` certificate kept in a job's parity/ folder: one model under"
            + " two conditions, encoded, searched exactly and scored alike.\n");
  }

  /** The paired tests of each task: rows with groups and intervals, then the pairs. */
  private static void paired(StringBuilder md, Leaderboard board) {
    if (board.paired() == null) {
      return;
    }
    if (!board.paired().hasPairs()) {
      md.append("\n").append(escape(PairedTables.noPairs(board.paired()))).append('\n');
      return;
    }
    md.append("\n## Paired tests per task\n\n")
        .append(escape(PairedTables.explanation(board.paired())))
        .append('\n');
    for (PairedTables.Task task : PairedTables.of(board)) {
      md.append("\n### ").append(escape(task.title())).append("\n\n");
      table(md, task.rows().header(), task.rows().rows(), task.rows().numeric());
      if (!task.pairs().rows().isEmpty()) {
        md.append('\n');
        table(md, task.pairs().header(), task.pairs().rows(), task.pairs().numeric());
      }
      if (!task.note().isEmpty()) {
        md.append('\n').append(escape(task.note())).append('\n');
      }
    }
  }

  /**
   * Stored and scanned bytes per document of the rows that report them (dense variants): stored is
   * what the variant keeps (a rescore keeps its codes and the float vectors), scanned what its
   * first stage reads per document; a chunked variant counts every window.
   */
  private static void memory(StringBuilder md, Leaderboard board) {
    List<List<String>> rows = new ArrayList<>();
    for (LeaderboardRow row : board.rows()) {
      if (row.facts().bytesPerVector() != null || row.facts().scannedBytesPerVector() != null) {
        rows.add(
            List.of(
                row.key().system().name(),
                row.key().variant(),
                row.key().mode(),
                bytes(row.facts().bytesPerVector()),
                bytes(row.facts().scannedBytesPerVector())));
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    md.append("\n## Bytes per document\n\n");
    table(
        md,
        List.of("system", "variant", "mode", "stored B/document", "scanned B/document"),
        rows,
        List.of(false, false, false, true, true));
    md.append(
        "\nStored: what the variant keeps per document (a rescore keeps the codes and the float"
            + " vectors; a chunked variant every window). Scanned: what its first stage reads per"
            + " document.\n");
  }

  /**
   * Query latency of the rows that measured it: single-query median and 99th percentile, and with
   * several queries in flight ({@link LatencyTable}).
   */
  /** The Bradley–Terry view of per-query wins ({@link PreferenceTable}), when there is one. */
  private static void preference(StringBuilder md, Leaderboard board) {
    PreferenceTable preference = PreferenceTable.of(board);
    if (preference.rows.isEmpty()) {
      return;
    }
    md.append("## ").append(PreferenceTable.TITLE).append("\n\n");
    table(md, preference.header, preference.rows, preference.numeric);
    md.append('\n').append(escape(preference.footnote)).append("\n\n");
  }

  private static void latency(StringBuilder md, Leaderboard board) {
    LatencyTable latency = LatencyTable.of(board);
    if (latency.rows.isEmpty()) {
      return;
    }
    md.append("\n## Query latency\n\n");
    table(md, latency.header, latency.rows, latency.numeric);
    md.append('\n').append(escape(latency.footnote)).append('\n');
  }

  private static String bytes(Double value) {
    return value == null ? "–" : String.valueOf(Math.round(value));
  }

  private static void perTask(StringBuilder md, Leaderboard board) {
    TieMarkers ties = new TieMarkers(board);
    rowsByTask(
        md,
        board,
        (row, task) -> {
          String cell =
              Numbers.score(row.scores().get(task))
                  + (ties.task(row, task) == null ? "" : TIE_MARK);
          if (row.delta() != null && !row.key().isBase() && row.delta().tasks().containsKey(task)) {
            cell += " (" + Numbers.delta(row.delta().tasks().get(task)) + ")";
          }
          return cell;
        });
    md.append("\nIn parentheses: the difference to the system's base variant.\n");
  }

  /** A table of the board's rows (system, variant, mode) by its tasks, one {@code cell} each. */
  private static void rowsByTask(
      StringBuilder md,
      Leaderboard board,
      java.util.function.BiFunction<LeaderboardRow, TaskRef, String> cell) {
    List<String> header = new ArrayList<>(List.of("system", "variant", "mode"));
    List<Boolean> numeric = new ArrayList<>(List.of(false, false, false));
    for (TaskRef task : board.tasks()) {
      header.add(task.id() + " (" + task.language() + ")");
      numeric.add(true);
    }
    List<List<String>> rows = new ArrayList<>();
    for (LeaderboardRow row : board.rows()) {
      List<String> cells =
          new ArrayList<>(
              List.of(row.key().system().name(), row.key().variant(), row.key().mode()));
      for (TaskRef task : board.tasks()) {
        cells.add(cell.apply(row, task));
      }
      rows.add(cells);
    }
    table(md, header, rows, numeric);
  }

  private static void table(
      StringBuilder md, List<String> header, List<List<String>> rows, List<Boolean> numeric) {
    md.append('|');
    header.forEach(h -> md.append(' ').append(escape(h)).append(" |"));
    md.append("\n|");
    numeric.forEach(n -> md.append(n ? " ---: |" : " --- |"));
    md.append('\n');
    for (List<String> row : rows) {
      md.append('|');
      row.forEach(cell -> md.append(' ').append(escape(cell)).append(" |"));
      md.append('\n');
    }
  }

  /**
   * Escapes text so that it shows literally, with Markdown's backslash escapes (no HTML entities,
   * which read as noise in a plain-text view of the file): backslash, pipes, emphasis, code, links,
   * and the characters that would start HTML ({@code < > &}).
   */
  static String escape(String text) {
    return text.replace("\\", "\\\\")
        .replace("<", "\\<")
        .replace(">", "\\>")
        .replace("&", "\\&")
        .replace("|", "\\|")
        .replace("*", "\\*")
        .replace("_", "\\_")
        .replace("`", "\\`")
        .replace("[", "\\[")
        .replace("]", "\\]");
  }
}
