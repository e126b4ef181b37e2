package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.aggregate.PairwisePreference;
import dev.tenbin.scoring.stats.Interval;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The "Pairwise preference (Bradley–Terry)" table of leaderboard.md and leaderboard.html: per
 * ranked row, in rank order, its Bradley–Terry log-strength from per-query wins and the 95%
 * interval of it ({@link PairwisePreference}); empty when the leaderboard has none.
 */
final class PreferenceTable {
  static final String TITLE = "Pairwise preference (Bradley–Terry)";

  final List<String> header = List.of("rank", "system", "variant", "mode", "BT θ", "95% CI (θ)");
  final List<Boolean> numeric = List.of(true, false, false, false, true, true);
  final List<List<String>> rows = new ArrayList<>();
  final String footnote;

  private PreferenceTable(String footnote) {
    this.footnote = footnote;
  }

  static PreferenceTable of(Leaderboard board) {
    PairwisePreference preference = board.preference();
    PreferenceTable table = new PreferenceTable(note(board));
    if (preference == null) {
      return table;
    }
    for (LeaderboardRow row : board.ranked()) {
      Double strength = preference.strengths().get(row.key());
      Interval interval = preference.intervals().get(row.key());
      table.rows.add(
          List.of(
              String.valueOf(row.rank()),
              row.key().system().name(),
              row.key().variant(),
              row.key().mode(),
              Numbers.delta(strength),
              interval == null
                  ? Numbers.ABSENT
                  : Numbers.delta(interval.low()) + " to " + Numbers.delta(interval.high())));
    }
    return table;
  }

  /** What the table shows and how it was made; empty without a fit. */
  static String note(Leaderboard board) {
    PairwisePreference preference = board.preference();
    if (preference == null) {
      return "";
    }
    String intervals =
        preference.draws() == 0
            ? "no intervals (--bootstrap 0)."
            : String.format(
                Locale.ROOT,
                "95%% CI: percentile bootstrap over %s (%,d draws, seed %d; each draw pools the"
                    + " wins of its sample and fits again%s).",
                preference.resampledTasks()
                    ? "tasks, stratified by benchmark"
                    : "the queries of each task, the same draw for every row",
                preference.draws(),
                board.options().seed(),
                preference.drawsWithoutFit() == 0
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        "; %,d draws without a finite fit left out",
                        preference.drawsWithoutFit()));
    return "BT θ: Bradley–Terry log-strength of the ranked rows, fitted by the MM algorithm"
        + " (Hunter 2004) to their wins on every query of every task that all of them stored (the"
        + " higher "
        + board.metric()
        + " wins, a tie counts half to each; a task weighs by its queries); θ is 0 for the mean row,"
        + " and the odds that a row beats another on a query are e^(θ − θ other). "
        + intervals;
  }
}
