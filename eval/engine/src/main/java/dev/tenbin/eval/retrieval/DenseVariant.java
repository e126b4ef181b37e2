package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Quantization;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An efficiency variant of a dense retriever, named as on the command line: {@code base}, {@code
 * int8}, {@code binary}, {@code int8_rescore}, {@code binary_rescore}, and any of them after a
 * truncation, e.g. {@code truncate256}, {@code truncate256_binary_rescore}; {@code hnsw} and HNSW
 * over each quantization ({@code hnsw_int8}, {@code truncate256_hnsw_binary_rescore}); any of them
 * after a {@link Chunking} prefix for long documents ({@code maxp256s128_int8}).
 *
 * <h2>Canonical names</h2>
 *
 * {@link #named} writes the parts in one order, joined by {@code _}: the chunking prefix, {@code
 * truncateN}, {@code hnsw}, {@code int8} or {@code binary}, {@code rescore}; the exact float scan
 * with nothing else is {@code base} (after a chunking prefix, the prefix alone). {@code
 * parse(named(...).name())} gives the same variant back. The parser also takes the older spellings
 * without underscores ({@code int8rescore}) and keeps the name as written, since a stored cell's
 * fingerprint covers its variant's name. Rescoring needs a quantization: {@code rescore}, {@code
 * truncate256_rescore} and {@code hnsw_rescore} are errors (a float scan, or the float HNSW
 * variant, already scores in float).
 *
 * @param name as written (canonical when built by {@link #named})
 * @param truncate leading dimensions kept; 0 = all
 * @param quantization the first stage's vectors: float, int8 codes or sign bits
 * @param rescore the first stage's top max(k, 100) re-scored with the float vectors
 * @param approximate an HNSW graph over the first stage's vectors proposes the candidates instead
 *     of the exact scan; recall against the exact scan of the same variant is reported
 */
public record DenseVariant(
    String name, int truncate, Quantization quantization, boolean rescore, boolean approximate) {
  public static final DenseVariant BASE =
      new DenseVariant("base", 0, Quantization.QUANTIZATION_NONE, false);

  /** Lucene HNSW candidates re-scored exactly, recall against exact search reported. */
  public static final DenseVariant HNSW =
      new DenseVariant("hnsw", 0, Quantization.QUANTIZATION_NONE, false, true);

  public DenseVariant(String name, int truncate, Quantization quantization, boolean rescore) {
    this(name, truncate, quantization, rescore, false);
  }

  private static final Pattern NAME =
      Pattern.compile("(?:truncate(\\d+))?_?(hnsw)?_?(int8|binary)?(_?rescore)?");

  /** The variants a dense evaluation derives when it names none. */
  public static List<DenseVariant> automatic() {
    return List.of(
        BASE, parse("int8"), parse("binary"), parse("int8_rescore"), parse("binary_rescore"));
  }

  public static DenseVariant parse(String name) {
    Chunking chunking = Chunking.ofVariant(name);
    if (!chunking.truncates()) {
      DenseVariant efficiency = parse(Chunking.efficiency(name));
      return new DenseVariant(
          name,
          efficiency.truncate(),
          efficiency.quantization(),
          efficiency.rescore(),
          efficiency.approximate());
    }
    if (name.equals("base")) {
      return BASE;
    }
    if (name.equals("hnsw")) {
      return HNSW;
    }
    Matcher m = NAME.matcher(name);
    if (!m.matches() || name.isEmpty()) {
      throw new InvalidInputException(
          "--variant",
          "unknown variant '"
              + name
              + "': expected base, int8, binary, int8_rescore, binary_rescore, hnsw,"
              + " or [truncateN_][hnsw_][int8|binary][_rescore]");
    }
    if (m.group(4) != null && m.group(3) == null) {
      throw new InvalidInputException(
          "--variant",
          "variant '"
              + name
              + "' rescores without a quantization: rescore needs int8 or binary (a float scan"
              + " already scores in float)");
    }
    int truncate = 0;
    if (m.group(1) != null) {
      // At most 65,536 dimensions (the index's cap); longer digit strings would overflow an int.
      truncate = m.group(1).length() > 5 ? Integer.MAX_VALUE : Integer.parseInt(m.group(1));
      if (truncate < 1 || truncate > 65_536) {
        throw new InvalidInputException(
            "--variant",
            "variant '"
                + name
                + "' truncates to "
                + (m.group(1).length() > 12 ? "a huge number of" : m.group(1))
                + " dimensions; truncateN needs 1 <= N <= 65536");
      }
    }
    Quantization quantization =
        m.group(3) == null
            ? Quantization.QUANTIZATION_NONE
            : m.group(3).equals("int8")
                ? Quantization.QUANTIZATION_INT8
                : Quantization.QUANTIZATION_BINARY;
    return new DenseVariant(name, truncate, quantization, m.group(4) != null, m.group(2) != null);
  }

  /**
   * The variant of these parts under its canonical name (see the class comment).
   *
   * @param chunking how long documents are seen ({@link Chunking#TRUNCATE} for no prefix)
   * @throws InvalidInputException naming {@code rescore} when rescoring a float first stage, or
   *     {@code truncate} for a truncation outside 0..65536
   */
  public static DenseVariant named(
      Chunking chunking,
      int truncate,
      Quantization quantization,
      boolean rescore,
      boolean approximate) {
    if (truncate < 0 || truncate > 65_536) {
      throw new InvalidInputException(
          "truncate", "truncate must be 0 (all dimensions) or within 1..65536, got " + truncate);
    }
    if (rescore && quantization == Quantization.QUANTIZATION_NONE) {
      throw new InvalidInputException(
          "rescore",
          "rescore needs a quantization (int8 or binary): a float first stage already scores in"
              + " float");
    }
    List<String> parts = new java.util.ArrayList<>();
    if (!chunking.truncates()) {
      parts.add(chunking.prefix());
    }
    if (truncate > 0) {
      parts.add("truncate" + truncate);
    }
    if (approximate) {
      parts.add("hnsw");
    }
    if (quantization == Quantization.QUANTIZATION_INT8) {
      parts.add("int8");
    } else if (quantization == Quantization.QUANTIZATION_BINARY) {
      parts.add("binary");
    }
    if (rescore) {
      parts.add("rescore");
    }
    return parse(parts.isEmpty() ? "base" : String.join("_", parts));
  }

  /** How this variant sees long documents. */
  public Chunking chunking() {
    return Chunking.ofVariant(name);
  }

  public DenseOptions options(Similarity similarity) {
    return DenseOptions.newBuilder()
        .setSimilarity(similarity)
        .setTruncateDimensions(truncate)
        .setQuantization(quantization)
        .setRescore(rescore)
        .setRescoreDepth(100)
        .setApproximate(approximate)
        .build();
  }
}
