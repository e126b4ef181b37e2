package dev.tenbin.scoring.stats;

import java.util.Arrays;

/**
 * The Bradley–Terry model of pairwise preferences, for a round robin: row i beats row j with
 * probability γ_i / (γ_i + γ_j), and every two rows meet equally often (every row is compared with
 * every other on every query). Strengths are fitted to the rows' wins by maximum likelihood with
 * the MM algorithm (Hunter, "MM algorithms for generalized Bradley–Terry models", Ann. Statist. 32,
 * 2004): γ_i ← W_i / Σ_{j≠i} n / (γ_i + γ_j), with W_i the wins of i and n the meetings of every
 * pair, until no log-strength moves by more than {@link #CONVERGED}. In a round robin a row's total
 * wins are all the likelihood needs. The result is the log-strength θ_i = ln γ_i, centred so that
 * the rows' mean is 0: θ_i − θ_j is the log odds that i beats j.
 */
public final class BradleyTerry {
  /** The fit stops when no log-strength moved by more than this in an iteration. */
  public static final double CONVERGED = 1e-9;

  /** The fit gives up (and returns what it has) after this many iterations. */
  public static final int MAX_ITERATIONS = 10_000;

  /** Win totals closer than this to a bound count as reaching it (sums of halves and counts). */
  private static final double WIN_TOLERANCE = 1e-9;

  private BradleyTerry() {}

  /**
   * Each row's wins in one round (a query) from the rows' values: one for every row with a lower
   * value, a half for every other row whose value ties ({@link CompetitionRanks#tie}). The wins of
   * a round sum to R(R − 1)/2 over R rows.
   */
  public static double[] roundWins(double[] values) {
    double[] wins = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      for (int j = i + 1; j < values.length; j++) {
        if (CompetitionRanks.tie(values[i], values[j])) {
          wins[i] += 0.5;
          wins[j] += 0.5;
        } else if (values[i] > values[j]) {
          wins[i] += 1;
        } else {
          wins[j] += 1;
        }
      }
    }
    return wins;
  }

  /**
   * The maximum-likelihood log-strengths, centred on mean 0; null when they do not exist: the
   * likelihood has a finite maximum only when no group of rows wins every meeting with the rest
   * (else their strengths run off to infinity). In a round robin such a group would be the rows
   * with the most wins, so the top k rows by wins are checked for every k. A single row gets 0.
   *
   * @param wins each row's total (possibly fractional) wins
   * @param meetings how often every two rows met (the rounds)
   */
  public static double[] fit(double[] wins, double meetings) {
    int rows = wins.length;
    if (rows <= 1) {
      return new double[rows];
    }
    if (someGroupWinsEveryMeeting(wins, meetings)) {
      return null;
    }
    double[] gamma = new double[rows];
    Arrays.fill(gamma, 1.0);
    double[] next = new double[rows];
    for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
      double logMean = 0;
      for (int i = 0; i < rows; i++) {
        double denominator = 0;
        for (int j = 0; j < rows; j++) {
          if (j != i) {
            denominator += meetings / (gamma[i] + gamma[j]);
          }
        }
        next[i] = wins[i] / denominator;
        logMean += Math.log(next[i]) / rows;
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

  /**
   * Whether the k rows with the most wins won every meeting with the others, for some k from 1 to R
   * − 1: their wins then total k(k − 1)/2 · n among themselves plus k(R − k) · n against the rest,
   * the most k rows can have. (Also true when a row has no win at all: the others form such a
   * group.)
   */
  private static boolean someGroupWinsEveryMeeting(double[] wins, double meetings) {
    int rows = wins.length;
    double[] sorted = wins.clone();
    Arrays.sort(sorted);
    double top = 0;
    for (int k = 1; k < rows; k++) {
      top += sorted[rows - k];
      double most = (k * (k - 1) / 2.0 + (double) k * (rows - k)) * meetings;
      if (top >= most - WIN_TOLERANCE) {
        return true;
      }
    }
    return false;
  }
}
