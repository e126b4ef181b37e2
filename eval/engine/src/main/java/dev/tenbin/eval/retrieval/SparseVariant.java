package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.proto.index.v1.SparseOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A max-active-dims pruning setting of a sparse retriever: {@code base} (no pruning) or {@code
 * sparse_qQ_dD}; {@code sparse_grid} names the grid q ∈ {8, 16, 24, 32} × d ∈ {64, 128, 256, 512},
 * all evaluated from one ingest.
 */
public record SparseVariant(String name, int maxQueryDims, int maxDocumentDims) {
  public static final SparseVariant BASE = new SparseVariant("base", 0, 0);
  static final int MAX_DIMS = 262_144;
  private static final Pattern NAME = Pattern.compile("sparse_q(\\d+)_d(\\d+)");

  public static List<SparseVariant> parse(String name) {
    if (name.equals("base")) {
      return List.of(BASE);
    }
    if (name.equals("sparse_grid")) {
      List<SparseVariant> grid = new ArrayList<>();
      for (int q : new int[] {8, 16, 24, 32}) {
        for (int d : new int[] {64, 128, 256, 512}) {
          grid.add(new SparseVariant("sparse_q" + q + "_d" + d, q, d));
        }
      }
      return grid;
    }
    Matcher m = NAME.matcher(name);
    if (!m.matches()) {
      throw new InvalidInputException(
          "--variant",
          "unknown sparse variant '" + name + "': expected base, sparse_qQ_dD or sparse_grid");
    }
    return List.of(new SparseVariant(name, dims(name, m.group(1)), dims(name, m.group(2))));
  }

  /** Active dimensions kept: 1 to {@value #MAX_DIMS} (a sparse vector over any real vocabulary). */
  private static int dims(String name, String digits) {
    int value = digits.length() > 6 ? Integer.MAX_VALUE : Integer.parseInt(digits);
    if (value < 1 || value > MAX_DIMS) {
      throw new InvalidInputException(
          "--variant",
          "sparse variant '" + name + "': sparse_qQ_dD needs 1 <= Q, D <= " + MAX_DIMS);
    }
    return value;
  }

  public SparseOptions options() {
    return SparseOptions.newBuilder()
        .setMaxQueryDims(maxQueryDims)
        .setMaxDocumentDims(maxDocumentDims)
        .build();
  }
}
