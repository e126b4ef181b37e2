package dev.tenbin.eval.cache;

/**
 * A learned sparse vector as the embedding cache stores it: token ids ascending and their weights.
 * The orchestrator's own type; {@link #of} and {@link #toProto} convert at the contract boundary.
 */
public record SparseVector(int[] indices, float[] values) {
  /** The vector of a {@code tenbin.common.v1.SparseVector} message. */
  public static SparseVector of(dev.tenbin.proto.common.v1.SparseVector vector) {
    int[] indices = new int[vector.getIndicesCount()];
    float[] values = new float[indices.length];
    for (int i = 0; i < indices.length; i++) {
      indices[i] = vector.getIndices(i);
      values[i] = vector.getValues(i);
    }
    return new SparseVector(indices, values);
  }

  /** This vector as a {@code tenbin.common.v1.SparseVector} message. */
  public dev.tenbin.proto.common.v1.SparseVector toProto() {
    var out = dev.tenbin.proto.common.v1.SparseVector.newBuilder();
    for (int i = 0; i < indices.length; i++) {
      out.addIndices(indices[i]).addValues(values[i]);
    }
    return out.build();
  }
}
