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
    return out.toString();
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
