package dev.tenbin.scoring.metrics;

/**
 * The discount of discounted cumulative gain, as {@code trec_eval}'s {@code ndcg_cut} applies it.
 */
public final class DcgDiscount {
  private static final double LN_2 = Math.log(2);

  private DcgDiscount() {}

  /**
   * The divisor of the gain at a 0-based position: log2(position + 2), i.e. log2(rank + 1) with
   * 1-based ranks, so rank 1 is not discounted.
   */
  public static double divisor(int position) {
    return Math.log(position + 2) / LN_2;
  }
}
