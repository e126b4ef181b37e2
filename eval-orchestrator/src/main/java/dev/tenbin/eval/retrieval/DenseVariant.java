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
 * truncation, e.g. {@code truncate256}, {@code truncate256_binary_rescore}; and {@code hnsw}; any
 * of them after a {@link Chunking} prefix for long documents ({@code maxp256s128_int8}).
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
      Pattern.compile("(?:truncate(\\d+))?_?(int8|binary)?(_?rescore)?");

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
    if (!m.matches() || name.isEmpty() || (m.group(3) != null && m.group(2) == null)) {
      throw new InvalidInputException(
          "--variant",
          "unknown variant '"
              + name
              + "': expected base, int8, binary, int8_rescore, binary_rescore,"
              + " truncateN or truncateN_<int8|binary>[_rescore]");
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
        m.group(2) == null
            ? Quantization.QUANTIZATION_NONE
            : m.group(2).equals("int8")
                ? Quantization.QUANTIZATION_INT8
                : Quantization.QUANTIZATION_BINARY;
    return new DenseVariant(name, truncate, quantization, m.group(3) != null);
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
