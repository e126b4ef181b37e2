package dev.tenbin.eval.positions;

import java.util.Locale;

/**
 * A position analysis as terminal text: per length bucket its queries, PSI, slope and correlations,
 * and the bin profile of nDCG@10 as a 20-character line (one mark per bin: {@code ·} empty or under
 * {@code min_count}, else a digit 0–9 for the mean's first decimal, {@code *} for 1.0).
 */
public final class PositionsText {
  private PositionsText() {}

  public static String table(String system, PositionAnalysis analysis) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%npositions of %s (lengths: %s tokens of %s; bins with >= %d queries)%n",
            system,
            analysis.tokenizer(),
            analysis.lengthReference(),
            analysis.minCount()));
    out.append(
        String.format(
            Locale.ROOT,
            "  %-12s %7s %-20s %8s %8s %8s %8s %8s %8s%n",
            "tokens",
            "queries",
            "nDCG@10 by bin",
            "psi",
            "slope",
            "pearson",
            "spearman",
            "kendall",
            "ref r"));
    for (PositionBucket bucket : analysis.buckets()) {
      String range =
          bucket.maxTokens() == null
              ? ">" + bucket.minTokens()
              : bucket.minTokens() + "-" + bucket.maxTokens();
      out.append(
          String.format(
              Locale.ROOT,
              "  %-12s %7d %-20s %8s %8s %8s %8s %8s %8s%n",
              range,
              bucket.queries(),
              profile(bucket, analysis.minCount()),
              number(bucket.psi()),
              number(bucket.slope()),
              number(bucket.pearson()),
              number(bucket.spearman()),
              number(bucket.kendall()),
              number(bucket.referencePearson())));
    }
    out.append(legend(analysis.minCount())).append(System.lineSeparator());
    return out.toString();
  }

  /**
   * What the profile's marks and the columns mean, printed under every table: the profile is only
   * readable with it.
   */
  public static String legend(int minCount) {
    return String.join(
        System.lineSeparator(),
        "  nDCG@10 by bin: one mark per twentieth of the document where the answer's centre lies"
            + " (start left,",
        "  end right): the bin's mean nDCG@10 as its first decimal 0-9, * for 1.0, · under "
            + minCount
            + " queries.",
        "  psi: 1 - min/max over those bins; slope: of nDCG@10 over bin centres (0 to 1);"
            + " pearson,",
        "  spearman, kendall: between bin and nDCG@10; ref r: Pearson with the reference"
            + " system's profile.");
  }

  static String profile(PositionBucket bucket, int minCount) {
    StringBuilder line = new StringBuilder();
    for (PositionBin bin : bucket.bins()) {
      if (bin.queries() < minCount || bin.ndcgAt10() == null) {
        line.append('·');
      } else if (bin.ndcgAt10() >= 1.0) {
        line.append('*');
      } else {
        line.append((char) ('0' + (int) Math.floor(bin.ndcgAt10() * 10)));
      }
    }
    return line.toString();
  }

  private static String number(Double value) {
    return value == null ? "-" : String.format(Locale.ROOT, "%.4f", value);
  }
}
