package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a hybrid fuses the rankings of its components, named as a variant: {@code rrf}, {@code
 * rrf_kK}, {@code rrf_kK_wW}, {@code minmax} or {@code minmax_wW}.
 *
 * <ul>
 *   <li>{@code rrf}: reciprocal rank fusion, {@code score(d) = Σ w_i / (k + rank_i(d))} (k default
 *       {@value #DEFAULT_K}, at least 1).
 *   <li>{@code minmax}: each component's scores min-max normalised per query over its ranking, then
 *       {@code Σ w_i · norm_i(d)} (a component whose scores are all equal counts 1 for each of its
 *       documents).
 * </ul>
 *
 * <p>Weights: {@code wW} is the first component's weight (0 to 1); the others share {@code 1 − W}
 * equally. Without it every component weighs {@code 1/n} (for RRF: the order of plain RRF, scores
 * divided by n). A document missing from a component's ranking contributes 0 there. Each
 * component's ranking is taken to the run's depth ({@code top_k}, the depth its cell stored) and
 * the fused ranking is cut to that depth again. Ties: fused FP32 score descending, then doc id
 * ascending (the index service's {@code Fuse}).
 *
 * @param method "rrf" or "minmax"
 * @param k the RRF constant (unused by minmax)
 * @param firstWeight the first component's weight, or null for equal weights
 */
public record HybridFusion(String method, int k, Double firstWeight) {
  public static final String RRF = "rrf";
  public static final String MINMAX = "minmax";
  public static final int DEFAULT_K = 60;

  /** What {@code tenbin eval} and a job use when no fusion variant is named. */
  public static final HybridFusion DEFAULT = new HybridFusion(RRF, DEFAULT_K, null);

  private static final Pattern NAME =
      Pattern.compile("(rrf|minmax)(?:_k([0-9]{1,6}))?(?:_w([0-9]*\\.?[0-9]+))?");

  public HybridFusion {
    if (!method.equals(RRF) && !method.equals(MINMAX)) {
      throw new InvalidInputException(
          "fusion", "unknown fusion '" + method + "': expected rrf or minmax");
    }
    if (method.equals(RRF) && k < 1) {
      throw new InvalidInputException("k", "the RRF constant k must be at least 1, got " + k);
    }
    if (firstWeight != null && !(firstWeight >= 0 && firstWeight <= 1)) {
      throw new InvalidInputException(
          "weight", "the first component's weight must be within 0..1, got " + firstWeight);
    }
  }

  /** Whether {@code variant} names a fusion ({@code rrf...} or {@code minmax...}). */
  public static boolean isFusionVariant(String variant) {
    return variant.startsWith(RRF) || variant.startsWith(MINMAX);
  }

  /** Parses a fusion variant name; throws naming {@code --variant}. */
  public static HybridFusion parse(String variant) {
    Matcher m = NAME.matcher(variant);
    if (!m.matches() || (m.group(1).equals(MINMAX) && m.group(2) != null)) {
      throw new InvalidInputException(
          "--variant",
          "unknown fusion variant '"
              + variant
              + "': expected rrf, rrf_kK, rrf_kK_wW, minmax or minmax_wW (e.g. rrf_k60,"
              + " minmax_w0.7)");
    }
    try {
      return new HybridFusion(
          m.group(1),
          m.group(2) == null ? DEFAULT_K : Integer.parseInt(m.group(2)),
          m.group(3) == null ? null : Double.parseDouble(m.group(3)));
    } catch (InvalidInputException e) {
      throw new InvalidInputException(
          "--variant", "fusion variant '" + variant + "': " + e.getMessage());
    }
  }

  /** The canonical variant name: "rrf_k60", "rrf_k60_w0.7", "minmax", "minmax_w0.3". */
  public String name() {
    String name = method.equals(RRF) ? RRF + "_k" + k : MINMAX;
    return firstWeight == null ? name : name + "_w" + number(firstWeight);
  }

  /** One sentence for diagnostics, e.g. "RRF k=60, weights [0.5, 0.5]". */
  public String describe(int components) {
    return (method.equals(RRF) ? "RRF k=" + k : "min-max normalized interpolation")
        + ", weights "
        + weights(components);
  }

  /** The weight of each of {@code n} components, in their order. */
  public List<Double> weights(int n) {
    List<Double> weights = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      if (firstWeight == null) {
        weights.add(1.0 / n);
      } else {
        weights.add(i == 0 ? firstWeight : (1 - firstWeight) / (n - 1));
      }
    }
    return weights;
  }

  /**
   * Fuses the rankings of the components (in the given order) through the index service's {@code
   * Fuse}; the fused ranking of every query, cut to {@code topK}.
   */
  public Map<String, List<ScoredDoc>> fuse(
      IndexClient index, int topK, Map<String, Map<String, List<ScoredDoc>>> components) {
    List<Double> weights = weights(components.size());
    return method.equals(RRF)
        ? Fusion.reciprocalRank(index, k, weights, topK, components)
        : Fusion.linear(index, weights, topK, components);
  }

  private static String number(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }
}
