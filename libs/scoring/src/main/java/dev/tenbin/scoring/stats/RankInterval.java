package dev.tenbin.scoring.stats;

/**
 * A bootstrap interval of a row's rank. In every draw the rows are ranked by their score in that
 * draw with {@link CompetitionRanks} (higher first; scores within its tolerance tie and share the
 * best rank, "1224"), and a row's interval runs from {@code best} to {@code worst}, the lower and
 * upper percentiles of its ranks over the draws. The percentiles are those of the empirical
 * distribution (the inverse of its cumulative distribution, R's type 1), so both bounds are ranks
 * some draw gave: for a central {@code level} L, {@code best} is the smallest rank r such that at
 * least (1 − L)/2 of the draws rank the row r or better, and {@code worst} the smallest r such that
 * at least (1 + L)/2 of them do. For a 95% interval over 1,000 draws: 25 or more draws rank the row
 * {@code best} or better (fewer than 25 better than that), and 975 or more {@code worst} or better.
 *
 * @param best the best (lowest-numbered) rank of the interval, 1 for the top
 * @param worst the worst rank of the interval
 */
public record RankInterval(int best, int worst) {
  /** Shares closer than this to a percentile count as reaching it (0.025 · 1,000 is 25 draws). */
  private static final double SHARE_TOLERANCE = 1e-9;

  public RankInterval {
    if (best < 1 || worst < best) {
      throw new IllegalArgumentException("rank interval " + best + "–" + worst);
    }
  }

  /**
   * The rank interval of each row.
   *
   * @param scores {@code scores[row][draw]}: each row's score in each draw (higher is better),
   *     every row with the same number of draws
   * @param level the central share of the ranks the interval holds, e.g. 0.95
   * @return each row's interval, in row order; null for every row when there are no draws
   */
  public static RankInterval[] of(double[][] scores, double level) {
    int rows = scores.length;
    RankInterval[] intervals = new RankInterval[rows];
    int draws = rows == 0 ? 0 : scores[0].length;
    if (draws == 0) {
      return intervals;
    }
    // counts[row][rank - 1]: the draws that rank the row at that rank
    int[][] counts = new int[rows][rows];
    double[] drawn = new double[rows];
    for (int draw = 0; draw < draws; draw++) {
      for (int row = 0; row < rows; row++) {
        drawn[row] = scores[row][draw];
      }
      int[] ranks = CompetitionRanks.of(drawn);
      for (int row = 0; row < rows; row++) {
        counts[row][ranks[row] - 1]++;
      }
    }
    double tail = (1 - level) / 2;
    for (int row = 0; row < rows; row++) {
      intervals[row] =
          new RankInterval(
              percentile(counts[row], draws, tail), percentile(counts[row], draws, 1 - tail));
    }
    return intervals;
  }

  /** The smallest rank that at least {@code share} of the draws reach or beat. */
  private static int percentile(int[] counts, int draws, double share) {
    long needed = Math.max(1, (long) Math.ceil(share * draws - SHARE_TOLERANCE));
    long reached = 0;
    for (int rank = 1; rank <= counts.length; rank++) {
      reached += counts[rank - 1];
      if (reached >= needed) {
        return rank;
      }
    }
    throw new IllegalStateException("no rank reaches " + share);
  }

  /**
   * Whether the interval includes rank 1: at least (1 − level)/2 of the draws (25 of 1,000 for a
   * 95% interval) rank the row first, alone or tied.
   */
  public boolean includesFirst() {
    return best == 1;
  }

  /** The interval as the reports show it: "1–3" (and "1–1" for a row always ranked first). */
  public String label() {
    return best + "–" + worst;
  }
}
