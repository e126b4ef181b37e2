package dev.tenbin.eval.leaderboard;

import java.util.Locale;

/** How the reports print numbers: two decimals, a sign on deltas, "–" for absent values. */
final class Numbers {
  static final String ABSENT = "–";

  private Numbers() {}

  static String score(Double value) {
    return value == null || value.isNaN() ? ABSENT : String.format(Locale.ROOT, "%.2f", value);
  }

  /**
   * A chosen measure as {@code trec_eval} prints it (4 decimals), with its tie-aware expectation in
   * parentheses when tied scores could move it.
   */
  static String measure(dev.tenbin.eval.aggregate.ChosenMeasures.Value value) {
    String text = String.format(Locale.ROOT, "%.4f", value.value());
    return value.tieAware().range() > 0
        ? text + String.format(Locale.ROOT, " (%.4f)", value.tieAware().expected())
        : text;
  }

  static String delta(Double value) {
    return value == null || value.isNaN() ? ABSENT : String.format(Locale.ROOT, "%+.2f", value);
  }

  static String probability(Double value) {
    return value == null ? ABSENT : String.format(Locale.ROOT, "%.2f", value);
  }

  /** A cost: three significant digits ("0.0123", "4.56", "1230"). */
  static String cost(Double value) {
    if (value == null || value.isNaN()) {
      return ABSENT;
    }
    return new java.math.BigDecimal(value)
        .round(new java.math.MathContext(3))
        .stripTrailingZeros()
        .toPlainString();
  }

  /** Compact axis labels: 950, 1.5k, 12k, 3M. */
  static String compact(double value) {
    double magnitude = Math.abs(value);
    if (magnitude >= 1e6) {
      return trim(value / 1e6) + "M";
    }
    if (magnitude >= 1e3) {
      return trim(value / 1e3) + "k";
    }
    return trim(value);
  }

  private static String trim(double value) {
    String text = String.format(Locale.ROOT, "%.2f", value);
    return text.contains(".") ? text.replaceAll("0+$", "").replaceAll("\\.$", "") : text;
  }
}
