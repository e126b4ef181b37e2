package dev.tenbin.eval.leaderboard;

/** Coarse buckets of task and row facts, for the HTML filters. */
final class LengthBuckets {
  static final String UNKNOWN = "unknown";

  private LengthBuckets() {}

  /** Average query length in whitespace words. */
  static String query(Double words) {
    if (words == null) {
      return UNKNOWN;
    }
    return words < 10
        ? "short (<10 words)"
        : words <= 20 ? "medium (10–20 words)" : "long (>20 words)";
  }

  /** Average document length in whitespace words. */
  static String document(Double words) {
    if (words == null) {
      return UNKNOWN;
    }
    return words < 100
        ? "short (<100 words)"
        : words <= 400 ? "medium (100–400 words)" : "long (>400 words)";
  }

  /** Model parameter count. */
  static String parameters(Double count) {
    if (count == null) {
      return UNKNOWN;
    }
    return count < 100e6 ? "<100M" : count < 1e9 ? "100M–1B" : "≥1B";
  }
}
