package dev.tenbin.index.grpc;

import dev.tenbin.index.multivector.TokenVectors;
import dev.tenbin.index.sparse.SparseDoc;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.MultiVector;
import dev.tenbin.proto.common.v1.SparseVector;

/** Vectors of {@code tenbin.common.v1} as the index core's arrays (checked by the core). */
final class ProtoVectors {
  private ProtoVectors() {}

  static float[] dense(DenseVector vector) {
    float[] values = new float[vector.getValuesCount()];
    for (int i = 0; i < values.length; i++) {
      values[i] = vector.getValues(i);
    }
    return values;
  }

  static SparseDoc sparse(SparseVector vector) {
    int[] ids = new int[vector.getIndicesCount()];
    float[] weights = new float[vector.getValuesCount()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = vector.getIndices(i);
    }
    for (int i = 0; i < weights.length; i++) {
      weights[i] = vector.getValues(i);
    }
    return new SparseDoc(ids, weights);
  }

  static TokenVectors tokens(MultiVector vector) {
    float[] values = new float[vector.getValuesCount()];
    for (int i = 0; i < values.length; i++) {
      values[i] = vector.getValues(i);
    }
    return new TokenVectors(vector.getTokenCount(), values);
  }
}
