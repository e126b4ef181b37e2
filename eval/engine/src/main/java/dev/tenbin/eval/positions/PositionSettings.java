package dev.tenbin.eval.positions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.model.tokenizer.LengthTokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;

/**
 * How a job analyses position bias in the cells of its tasks with answer spans: its {@code
 * positions:} block.
 *
 * <pre>{@code
 * positions:
 *   tokenizer: bge-small-en-v1.5   # a built-in model id or a tokenizer.json path
 *   min_count: 5                   # bins with fewer queries are left out of PSI and correlations
 *   reference: bm25                # whose bin profile the others are correlated with
 * }</pre>
 *
 * <p>Tokenizer and minimum count decide what a cell stores, so a job that changes them gives its
 * span cells their own fingerprints ({@link #isDefaultAnalysis()}: the defaults add nothing, so
 * cells computed before these settings existed keep theirs). The reference decides nothing stored:
 * the correlation with it is computed when reports are written, from the two stored analyses.
 *
 * @param tokenizer the length tokenizer ({@link LengthTokenizer#open})
 * @param minCount at least 1
 * @param reference a system name as cells record it ({@code bm25}, {@code dense:MODEL}), matched to
 *     the cell of that system's {@code base} variant in retrieve mode of each task
 */
public record PositionSettings(String tokenizer, int minCount, String reference) {
  /** The default reference system. */
  public static final String DEFAULT_REFERENCE = "bm25";

  /** Default tokenizer, {@code min_count} 5, BM25 as the reference. */
  public static final PositionSettings DEFAULTS =
      new PositionSettings(
          LengthTokenizer.DEFAULT, PositionAnalysis.DEFAULT_MIN_COUNT, DEFAULT_REFERENCE);

  public PositionSettings {
    if (tokenizer == null || tokenizer.isBlank()) {
      throw new InvalidInputException("positions.tokenizer", "positions.tokenizer is empty");
    }
    if (minCount < 1) {
      throw new InvalidInputException(
          "positions.min_count", "positions.min_count must be at least 1, got " + minCount);
    }
    if (reference == null || reference.isBlank()) {
      throw new InvalidInputException("positions.reference", "positions.reference is empty");
    }
    tokenizer = tokenizer.strip();
    reference = reference.strip();
  }

  /**
   * The settings of a job spec's {@code positions:} value (missing or null: the defaults).
   *
   * @throws InvalidInputException naming the field ({@code positions.min_count}, ...)
   */
  public static PositionSettings fromYaml(JsonNode node) {
    if (node == null || node.isMissingNode() || node.isNull()) {
      return DEFAULTS;
    }
    if (!node.isObject()) {
      throw new InvalidInputException(
          "positions", "must be a mapping of tokenizer, min_count and reference");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String key = names.next();
      if (!KEYS.contains(key)) {
        throw new InvalidInputException(
            "positions." + SafeText.escaped(key, SafeText.MAX_QUOTED_CHARS),
            "unknown field; expected one of " + KEYS);
      }
    }
    JsonNode minCount = node.path("min_count");
    if (!minCount.isMissingNode() && !minCount.canConvertToExactIntegral()) {
      throw new InvalidInputException(
          "positions.min_count",
          "must be a whole number, got " + SafeText.quote(minCount.asText()));
    }
    return new PositionSettings(
        text(node, "tokenizer", DEFAULTS.tokenizer),
        minCount.isMissingNode() ? DEFAULTS.minCount : minCount.asInt(),
        text(node, "reference", DEFAULTS.reference));
  }

  /**
   * The settings a job folder was run with: the {@code positions:} of its {@code job.yaml}; the
   * defaults when it has none, or no readable {@code job.yaml} (a folder of older cells).
   */
  public static PositionSettings ofJobFolder(Path jobDirectory) {
    Path spec = jobDirectory.resolve("job.yaml");
    if (!Files.isRegularFile(spec)) {
      return DEFAULTS;
    }
    try {
      JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(spec.toFile());
      return root == null ? DEFAULTS : fromYaml(root.path("positions"));
    } catch (IOException | InvalidInputException e) {
      return DEFAULTS;
    }
  }

  private static String text(JsonNode node, String key, String fallback) {
    JsonNode value = node.path(key);
    if (value.isMissingNode() || value.isNull()) {
      return fallback;
    }
    if (!value.isValueNode()) {
      throw new InvalidInputException("positions." + key, "must be a single value");
    }
    return value.asText();
  }

  private static final java.util.Set<String> KEYS =
      new java.util.TreeSet<>(java.util.List.of("tokenizer", "min_count", "reference"));

  /** Whether tokenizer and minimum count are the defaults (what cells store is then unchanged). */
  public boolean isDefaultAnalysis() {
    return tokenizer.equals(DEFAULTS.tokenizer) && minCount == DEFAULTS.minCount;
  }
}
