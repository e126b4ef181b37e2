package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.aggregate.RowFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The "Query latency" table of leaderboard.md and leaderboard.html: per row that measured it, the
 * single-query median and 99th percentile and, where its cells measured it, the latency with
 * several queries in flight and the queries per second. When every such row was measured with the
 * same number in flight the headers state it ("p50 µs @4"); otherwise an "in flight" column states
 * each row's. Rows without the concurrent figures (cells stored before they were measured) show
 * {@link Numbers#ABSENT}; without any such row the concurrent columns are left out.
 */
final class LatencyTable {
  final List<String> header;
  final List<List<String>> rows;
  final List<Boolean> numeric;
  final String footnote;

  private LatencyTable(
      List<String> header, List<List<String>> rows, List<Boolean> numeric, String footnote) {
    this.header = header;
    this.rows = rows;
    this.numeric = numeric;
    this.footnote = footnote;
  }

  static LatencyTable of(Leaderboard board) {
    List<LeaderboardRow> measured =
        board.rows().stream()
            .filter(r -> r.facts().latencyUs() != null || r.facts().concurrent() != null)
            .toList();
    List<RowFacts.Concurrent> concurrent =
        measured.stream().map(r -> r.facts().concurrent()).filter(c -> c != null).toList();
    List<String> inFlight =
        concurrent.stream().map(RowFacts.Concurrent::inFlight).distinct().toList();
    boolean stated = inFlight.size() == 1 && !inFlight.getFirst().contains("–");
    String at = stated ? " @" + inFlight.getFirst() : " @C";
    List<String> header = new ArrayList<>(List.of("system", "variant", "mode", "p50 µs", "p99 µs"));
    if (!concurrent.isEmpty()) {
      if (!stated) {
        header.add("in flight");
      }
      header.addAll(List.of("p50 µs" + at, "p99 µs" + at, "q/s" + at));
    }
    List<List<String>> rows = new ArrayList<>();
    for (LeaderboardRow row : measured) {
      List<String> cells =
          new ArrayList<>(
              List.of(
                  row.key().system().name(),
                  row.key().variant(),
                  row.key().mode(),
                  micros(row.facts().latencyUs()),
                  micros(row.facts().latencyP99Us())));
      if (!concurrent.isEmpty()) {
        RowFacts.Concurrent c = row.facts().concurrent();
        if (!stated) {
          cells.add(c == null ? Numbers.ABSENT : c.inFlight());
        }
        cells.add(c == null ? Numbers.ABSENT : micros(c.p50Us()));
        cells.add(c == null ? Numbers.ABSENT : micros(c.p99Us()));
        cells.add(c == null ? Numbers.ABSENT : rate(c.queriesPerSecond()));
      }
      rows.add(cells);
    }
    List<Boolean> numeric = new ArrayList<>(List.of(false, false, false));
    while (numeric.size() < header.size()) {
      numeric.add(true);
    }
    return new LatencyTable(
        header,
        rows,
        numeric,
        footnote(concurrent, stated, inFlight, concurrent.size() < measured.size()));
  }

  private static String footnote(
      List<RowFacts.Concurrent> concurrent,
      boolean stated,
      List<String> inFlight,
      boolean missing) {
    String text =
        "p50 µs, p99 µs: one query at a time, encode plus search, the first 100 evaluated queries"
            + " of each task after the batch run (mean over the row's tasks); p99 is the sum of the"
            + " encode and search 99th percentiles.";
    if (concurrent.isEmpty()) {
      return text;
    }
    String columns =
        stated
            ? " @"
                + inFlight.getFirst()
                + ": the same queries with "
                + inFlight.getFirst()
                + " in flight"
            : " in flight: the queries in flight of the row's cells (a range when they differ); @C:"
                + " the same queries with that many in flight";
    return text
        + columns
        + " (each of that many threads takes the next query and runs its whole path, encode then"
        + " search): p50 and p99 of a query's time from its start to its answer, q/s the queries"
        + " answered per second of the measurement's wall time (mean over the row's tasks; a"
        + " hybrid adds up its components')."
        + (missing ? " –: not measured (cells stored before the concurrent measurement)." : "");
  }

  private static String micros(Double value) {
    return value == null ? Numbers.ABSENT : String.valueOf(Math.round(value));
  }

  private static String rate(double value) {
    return String.format(Locale.ROOT, value >= 100 ? "%.0f" : "%.1f", value);
  }
}
