package dev.tenbin.scoring.stats;

import java.util.List;

/**
 * Borda count over tasks: on each task a row scores one point for every other row it beats and half
 * a point for every row it ties ({@link CompetitionRanks#tie}); a row's Borda score is the sum over
 * tasks. Only rows with a score on every task take part (the complete rows).
 */
public final class Borda {
  private Borda() {}

  /**
   * The Borda score of each row.
   *
   * @param scores {@code scores[row][task]}, every row with every task
   */
  public static double[] of(double[][] scores) {
    double[] borda = new double[scores.length];
    for (int row = 0; row < scores.length; row++) {
      for (int task = 0; task < scores[row].length; task++) {
        for (int other = 0; other < scores.length; other++) {
          if (other == row) {
            continue;
          }
          double mine = scores[row][task];
          double theirs = scores[other][task];
          if (CompetitionRanks.tie(mine, theirs)) {
            borda[row] += 0.5;
          } else if (mine > theirs) {
            borda[row] += 1;
          }
        }
      }
    }
    return borda;
  }

  /** Convenience for rows given as lists. */
  public static double[] of(List<double[]> rows) {
    return of(rows.toArray(double[][]::new));
  }
}
