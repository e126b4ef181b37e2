package dev.tenbin.index.sparse;

/** A sparse vector: term ids strictly ascending, their weights. */
public record SparseDoc(int[] ids, float[] weights) {
  /** The {@code max} entries of largest |weight| (ties by smaller id), ids ascending; 0 = all. */
  public SparseDoc pruned(int max) {
    if (max <= 0 || ids.length <= max) {
      return this;
    }
    Integer[] order = new Integer[ids.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(
        order,
        java.util.Comparator.<Integer>comparingDouble(i -> -Math.abs(weights[i]))
            .thenComparingInt(i -> ids[i]));
    int[] keep = new int[max];
    for (int i = 0; i < max; i++) {
      keep[i] = order[i];
    }
    java.util.Arrays.sort(keep);
    int[] outIds = new int[max];
    float[] outWeights = new float[max];
    for (int i = 0; i < max; i++) {
      outIds[i] = ids[keep[i]];
      outWeights[i] = weights[keep[i]];
    }
    return new SparseDoc(outIds, outWeights);
  }
}
