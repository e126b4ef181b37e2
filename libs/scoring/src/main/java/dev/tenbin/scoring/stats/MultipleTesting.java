package dev.tenbin.scoring.stats;

import java.util.Comparator;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Adjusted p-values for a family of tests, as R's {@code p.adjust} computes them. A NaN p-value (a
 * test that could not be run) stays NaN and is no member of the family.
 */
public final class MultipleTesting {
  private MultipleTesting() {}

  /** How a family of p-values is corrected. */
  public enum Correction {
    /**
     * Holm–Bonferroni: controls the family-wise error rate. With p sorted ascending, the i-th (from
     * 1) adjusted value is max over j ≤ i of min(1, (m − j + 1) · p<sub>(j)</sub>).
     */
    HOLM("holm", "Holm–Bonferroni"),
    /**
     * Benjamini–Hochberg: controls the false discovery rate. With p sorted ascending, the i-th
     * adjusted value is min over j ≥ i of min(1, m / j · p<sub>(j)</sub>).
     */
    BENJAMINI_HOCHBERG("bh", "Benjamini–Hochberg"),
    /** None: the p-values as they are. */
    NONE("none", "uncorrected");

    private final String wireName;
    private final String label;

    Correction(String wireName, String label) {
      this.wireName = wireName;
      this.label = label;
    }

    /** The option value: holm, bh or none. */
    public String wireName() {
      return wireName;
    }

    /** The name a report prints. */
    public String label() {
      return label;
    }

    /** The correction of an option value (holm, bh, none; case ignored). */
    public static Correction parse(String value) {
      for (Correction correction : values()) {
        if (correction.wireName.equalsIgnoreCase(value.trim())) {
          return correction;
        }
      }
      throw new IllegalArgumentException(
          "a correction is holm, bh or none, got '" + value.toLowerCase(Locale.ROOT) + "'");
    }
  }

  /** The adjusted p-values of {@code p}, in the same order. */
  public static double[] adjust(double[] p, Correction correction) {
    int[] order =
        IntStream.range(0, p.length)
            .filter(i -> !Double.isNaN(p[i]))
            .boxed()
            .sorted(Comparator.comparingDouble((Integer i) -> p[i]).thenComparingInt(i -> i))
            .mapToInt(Integer::intValue)
            .toArray();
    double[] adjusted = p.clone();
    int m = order.length;
    switch (correction) {
      case NONE -> {}
      case HOLM -> {
        double running = 0;
        for (int rank = 0; rank < m; rank++) {
          running = Math.max(running, Math.min(1, (m - rank) * p[order[rank]]));
          adjusted[order[rank]] = running;
        }
      }
      case BENJAMINI_HOCHBERG -> {
        double running = 1;
        for (int rank = m - 1; rank >= 0; rank--) {
          running = Math.min(running, Math.min(1, (double) m / (rank + 1) * p[order[rank]]));
          adjusted[order[rank]] = running;
        }
      }
    }
    return adjusted;
  }
}
