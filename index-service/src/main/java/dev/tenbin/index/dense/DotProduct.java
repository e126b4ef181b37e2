package dev.tenbin.index.dense;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * A SIMD dot product whose result does not depend on the JIT: lanes accumulate with fused
 * multiply-add (exact per lane whether intrinsified or interpreted), then the lanes are summed in a
 * fixed order. Lucene's {@code VectorUtil} reduces lanes in an unspecified order, which gave scores
 * differing in the last bit between the first (interpreted) and later (compiled) calls. The species
 * is fixed at 256 bits so that every machine computes the same bytes.
 */
public final class DotProduct {
  private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_256;

  private DotProduct() {}

  public static float dot(float[] query, float[] docs, int offset, int length) {
    FloatVector acc = FloatVector.zero(SPECIES);
    int i = 0;
    int bound = SPECIES.loopBound(length);
    for (; i < bound; i += SPECIES.length()) {
      acc = FloatVector.fromArray(SPECIES, query, i).fma(FloatVector.fromArray(SPECIES, docs, offset + i), acc);
    }
    float[] lanes = acc.toArray();
    float sum = 0;
    for (float lane : lanes) {
      sum += lane;
    }
    for (; i < length; i++) {
      sum = Math.fma(query[i], docs[offset + i], sum);
    }
    return sum;
  }
}
