package dev.tenbin.scoring.stats;

/**
 * Standard competition ranking ("1224"): a score's rank is one more than the number of scores
 * strictly better than it, so equal scores share the best rank and the next rank is skipped. Scores
 * closer than {@link #TOLERANCE} count as equal (means of the same numbers in another order may
 * differ in the last bits).
 */
public final class CompetitionRanks {
  /** Scores (on the 0..100 scale) closer than this are ties. */
  public static final double TOLERANCE = 1e-9;

  private CompetitionRanks() {}

  /** The rank of each score, higher scores first. */
  public static int[] of(double[] scores) {
    int[] ranks = new int[scores.length];
    for (int i = 0; i < scores.length; i++) {
      int better = 0;
      for (double other : scores) {
        if (other > scores[i] + TOLERANCE) {
          better++;
        }
      }
      ranks[i] = better + 1;
    }
    return ranks;
  }

  /** Whether two scores tie. */
  public static boolean tie(double a, double b) {
    return Math.abs(a - b) <= TOLERANCE;
  }
}
