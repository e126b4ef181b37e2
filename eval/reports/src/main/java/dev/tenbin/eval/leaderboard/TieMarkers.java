package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.aggregate.Leaderboard;
import dev.tenbin.eval.aggregate.LeaderboardRow;
import dev.tenbin.eval.store.TaskRef;
import java.util.List;
import java.util.Locale;

/**
 * Where tie-breaking alone could reorder a column: a value is marked when its tie range (the
 * tie-aware max − min of the metric, × 100) exceeds the gap to its nearest neighbour in that
 * column. For a task column the neighbours are the other rows with that task; for the aggregate
 * column the ranked rows just above and below (the aggregate's tie range being the same aggregate
 * over the tasks' tie ranges).
 */
final class TieMarkers {
  private final Leaderboard board;

  TieMarkers(Leaderboard board) {
    this.board = board;
  }

  /** The marker text (a tooltip) for a task cell, or null when none. */
  String task(LeaderboardRow row, TaskRef task) {
    Double score = row.scores().get(task);
    if (score == null) {
      return null;
    }
    double gap = Double.POSITIVE_INFINITY;
    for (LeaderboardRow other : board.rows()) {
      Double theirs = other.scores().get(task);
      if (other != row && theirs != null) {
        gap = Math.min(gap, Math.abs(theirs - score));
      }
    }
    return marker(row.tieRanges().get(task), gap);
  }

  /** The marker text for a ranked row's aggregate, or null when none. */
  String aggregate(LeaderboardRow row) {
    List<LeaderboardRow> ranked = board.ranked();
    int index = ranked.indexOf(row);
    if (index < 0) {
      return null;
    }
    double score = row.score(board.aggregate());
    double gap = Double.POSITIVE_INFINITY;
    if (index > 0) {
      gap = Math.min(gap, Math.abs(ranked.get(index - 1).score(board.aggregate()) - score));
    }
    if (index + 1 < ranked.size()) {
      gap = Math.min(gap, Math.abs(ranked.get(index + 1).score(board.aggregate()) - score));
    }
    return marker(row.tieRange(board.aggregate()), gap);
  }

  private static String marker(double range, double gap) {
    if (Double.isInfinite(gap) || !(range > gap)) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "tie range %.2f exceeds the gap %.2f to the neighbouring row: tie-breaking alone could swap them",
        range,
        gap);
  }
}
