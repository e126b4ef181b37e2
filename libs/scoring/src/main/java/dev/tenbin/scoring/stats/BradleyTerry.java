package dev.tenbin.scoring.stats;

/**
 * The Bradley–Terry model of pairwise preferences: row i beats row j with probability γ_i / (γ_i +
 * γ_j). Strengths are fitted to a matrix of wins by maximum likelihood with the MM algorithm
 * (Hunter, "MM algorithms for generalized Bradley–Terry models", Ann. Statist. 32, 2004): γ_i ← W_i
 * / Σ_{j≠i} n_ij / (γ_i + γ_j), with W_i the wins of i and n_ij the comparisons of i and j, until
 * no log-strength moves by more than {@link #CONVERGED}. The result is the log-strength θ_i = ln
 * γ_i, centred so that the rows' mean is 0: θ_i − θ_j is the log odds that i beats j.
 */
public final class BradleyTerry {
  /** The fit stops when no log-strength moved by more than this in an iteration. */
  public static final double CONVERGED = 1e-9;

  /** The fit gives up (and returns what it has) after this many iterations. */
  public static final int MAX_ITERATIONS = 10_000;

  private BradleyTerry() {}

  /**
   * The wins of every row over every other from paired values: per item (a query), the row with the
   * higher value wins one; rows whose values tie ({@link CompetitionRanks#tie}) win half each.
   *
   * @param values {@code values[row][item]}, every row with the same items
   * @return {@code wins[i][j]}: the wins of row i over row j (0 on the diagonal)
   */
  public static double[][] wins(double[][] values) {
    int rows = values.length;
    double[][] wins = new double[rows][rows];
    for (int i = 0; i < rows; i++) {
      for (int j = i + 1; j < rows; j++) {
        for (int item = 0; item < values[i].length; item++) {
          addOutcome(wins, i, j, values[i][item], values[j][item], 1);
        }
      }
    }
    return wins;
  }

  /**
   * Adds {@code times} comparisons of rows i and j with values a and b to {@code wins}: a win for
   * the higher, half each on a tie.
   */
  public static void addOutcome(double[][] wins, int i, int j, double a, double b, double times) {
    if (CompetitionRanks.tie(a, b)) {
      wins[i][j] += times / 2;
      wins[j][i] += times / 2;
    } else if (a > b) {
      wins[i][j] += times;
    } else {
      wins[j][i] += times;
    }
  }

  /**
   * The maximum-likelihood log-strengths, centred on mean 0; null when they do not exist: the
   * likelihood has a finite maximum only when every split of the rows into two groups has a win
   * each way across it (the graph with an edge i → j when i beat j at least partly is strongly
   * connected), else some strengths run off to infinity. A single row gets 0.
   *
   * @param wins {@code wins[i][j]}: the (possibly fractional) wins of row i over row j
   */
  public static double[] fit(double[][] wins) {
    int rows = wins.length;
    if (rows <= 1) {
      return new double[rows];
    }
    if (!stronglyConnected(wins)) {
      return null;
    }
    double[] total = new double[rows];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < rows; j++) {
        total[i] += i == j ? 0 : wins[i][j];
      }
    }
    double[] gamma = new double[rows];
    java.util.Arrays.fill(gamma, 1.0);
    double[] next = new double[rows];
    for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      for (int i = 0; i < rows; i++) {
        double denominator = 0;
        for (int j = 0; j < rows; j++) {
          if (j != i) {
            denominator += (wins[i][j] + wins[j][i]) / (gamma[i] + gamma[j]);
          }
        }
        next[i] = total[i] / denominator;
      }
      double logMean = 0;
      for (double value : next) {
        logMean += Math.log(value) / rows;
      }
      double moved = 0;
      for (int i = 0; i < rows; i++) {
        double updated = Math.exp(Math.log(next[i]) - logMean);
        moved = Math.max(moved, Math.abs(Math.log(updated) - Math.log(gamma[i])));
        gamma[i] = updated;
      }
      if (moved <= CONVERGED) {
        break;
      }
    }
    double[] theta = new double[rows];
    for (int i = 0; i < rows; i++) {
      theta[i] = Math.log(gamma[i]);
    }
    return theta;
  }

  /** Whether every row reaches every other along edges i → j with {@code wins[i][j] > 0}. */
  private static boolean stronglyConnected(double[][] wins) {
    int rows = wins.length;
    return reachesAll(wins, false) && reachesAll(wins, true);
  }

  /** Whether row 0 reaches every row (or, reversed, every row reaches row 0). */
  private static boolean reachesAll(double[][] wins, boolean reversed) {
    int rows = wins.length;
    boolean[] seen = new boolean[rows];
    java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
    seen[0] = true;
    queue.add(0);
    int reached = 1;
    while (!queue.isEmpty()) {
      int i = queue.poll();
      for (int j = 0; j < rows; j++) {
        double edge = reversed ? wins[j][i] : wins[i][j];
        if (!seen[j] && edge > 0) {
          seen[j] = true;
          reached++;
          queue.add(j);
        }
      }
    }
    return reached == rows;
  }
}
