package dev.tenbin.index.dense;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * SIMD float dot products whose result does not depend on the JIT, the machine or the path taken.
 *
 * <p>Every dot product is evaluated in one fixed order: two 256-bit accumulators take alternate
 * 8-float chunks with fused multiply-add (exact per lane whether intrinsified or interpreted), a
 * trailing 8-float chunk goes to the first accumulator, the two are added lane-wise, the eight
 * lanes are summed left to right, and the last {@code length mod 8} values are added with scalar
 * FMA. Lucene's {@code VectorUtil} and {@code reduceLanes(ADD)} reduce lanes in an unspecified
 * order, which gave scores differing in the last bit between interpreted and compiled calls. The
 * species is fixed at 256 bits so that every machine computes the same bytes.
 *
 * <p>{@link #dot4} scores four queries against one document in one pass (the document is read once
 * for the four), and {@link #dotFour} one query against four documents (the query is read once for
 * the four, and the eight accumulators keep both FMA pipes busy where one document's two would wait
 * on each other's latency), each in exactly the same order, so a score is the same whichever kernel
 * computed it.
 */
public final class DotProduct {
  private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_256;
  private static final int LANES = 8;

  private DotProduct() {}

  /** Σ query[i] · docs[offset + i] over {@code i < length}. */
  public static float dot(float[] query, float[] docs, int offset, int length) {
    FloatVector a = FloatVector.zero(SPECIES);
    FloatVector b = FloatVector.zero(SPECIES);
    int i = 0;
    int pairs = length & ~(2 * LANES - 1);
    for (; i < pairs; i += 2 * LANES) {
      a = FloatVector.fromArray(SPECIES, query, i).fma(load(docs, offset + i), a);
      b = FloatVector.fromArray(SPECIES, query, i + LANES).fma(load(docs, offset + i + LANES), b);
    }
    if (i + LANES <= length) {
      a = FloatVector.fromArray(SPECIES, query, i).fma(load(docs, offset + i), a);
      i += LANES;
    }
    float sum = sumLanes(a.add(b));
    for (; i < length; i++) {
      sum = Math.fma(query[i], value(docs, offset + i), sum);
    }
    return sum;
  }

  /**
   * The dot products of one query with the four documents at {@code offset}, {@code offset +
   * length}, {@code offset + 2 · length} and {@code offset + 3 · length} (four consecutive rows),
   * written to {@code out[at..at+3]}; bit-identical to four calls of {@link #dot}.
   */
  public static void dotFour(
      float[] query, float[] docs, int offset, int length, float[] out, int at) {
    int o0 = offset;
    int o1 = offset + length;
    int o2 = offset + 2 * length;
    int o3 = offset + 3 * length;
    FloatVector a0 = FloatVector.zero(SPECIES);
    FloatVector a1 = a0;
    FloatVector a2 = a0;
    FloatVector a3 = a0;
    FloatVector b0 = a0;
    FloatVector b1 = a0;
    FloatVector b2 = a0;
    FloatVector b3 = a0;
    int i = 0;
    int pairs = length & ~(2 * LANES - 1);
    for (; i < pairs; i += 2 * LANES) {
      FloatVector x = FloatVector.fromArray(SPECIES, query, i);
      FloatVector y = FloatVector.fromArray(SPECIES, query, i + LANES);
      a0 = x.fma(load(docs, o0 + i), a0);
      b0 = y.fma(load(docs, o0 + i + LANES), b0);
      a1 = x.fma(load(docs, o1 + i), a1);
      b1 = y.fma(load(docs, o1 + i + LANES), b1);
      a2 = x.fma(load(docs, o2 + i), a2);
      b2 = y.fma(load(docs, o2 + i + LANES), b2);
      a3 = x.fma(load(docs, o3 + i), a3);
      b3 = y.fma(load(docs, o3 + i + LANES), b3);
    }
    if (i + LANES <= length) {
      FloatVector x = FloatVector.fromArray(SPECIES, query, i);
      a0 = x.fma(load(docs, o0 + i), a0);
      a1 = x.fma(load(docs, o1 + i), a1);
      a2 = x.fma(load(docs, o2 + i), a2);
      a3 = x.fma(load(docs, o3 + i), a3);
      i += LANES;
    }
    float s0 = sumLanes(a0.add(b0));
    float s1 = sumLanes(a1.add(b1));
    float s2 = sumLanes(a2.add(b2));
    float s3 = sumLanes(a3.add(b3));
    for (; i < length; i++) {
      float q = query[i];
      s0 = Math.fma(q, value(docs, o0 + i), s0);
      s1 = Math.fma(q, value(docs, o1 + i), s1);
      s2 = Math.fma(q, value(docs, o2 + i), s2);
      s3 = Math.fma(q, value(docs, o3 + i), s3);
    }
    out[at] = s0;
    out[at + 1] = s1;
    out[at + 2] = s2;
    out[at + 3] = s3;
  }

  /**
   * The dot products of four queries (each at least {@code length} long) with one document, written
   * to {@code out[at..at+3]}; bit-identical to four calls of {@link #dot}.
   */
  public static void dot4(
      float[] q0,
      float[] q1,
      float[] q2,
      float[] q3,
      float[] docs,
      int offset,
      int length,
      float[] out,
      int at) {
    FloatVector a0 = FloatVector.zero(SPECIES);
    FloatVector a1 = a0;
    FloatVector a2 = a0;
    FloatVector a3 = a0;
    FloatVector b0 = a0;
    FloatVector b1 = a0;
    FloatVector b2 = a0;
    FloatVector b3 = a0;
    int i = 0;
    int pairs = length & ~(2 * LANES - 1);
    for (; i < pairs; i += 2 * LANES) {
      FloatVector x = load(docs, offset + i);
      FloatVector y = load(docs, offset + i + LANES);
      a0 = FloatVector.fromArray(SPECIES, q0, i).fma(x, a0);
      b0 = FloatVector.fromArray(SPECIES, q0, i + LANES).fma(y, b0);
      a1 = FloatVector.fromArray(SPECIES, q1, i).fma(x, a1);
      b1 = FloatVector.fromArray(SPECIES, q1, i + LANES).fma(y, b1);
      a2 = FloatVector.fromArray(SPECIES, q2, i).fma(x, a2);
      b2 = FloatVector.fromArray(SPECIES, q2, i + LANES).fma(y, b2);
      a3 = FloatVector.fromArray(SPECIES, q3, i).fma(x, a3);
      b3 = FloatVector.fromArray(SPECIES, q3, i + LANES).fma(y, b3);
    }
    if (i + LANES <= length) {
      FloatVector x = load(docs, offset + i);
      a0 = FloatVector.fromArray(SPECIES, q0, i).fma(x, a0);
      a1 = FloatVector.fromArray(SPECIES, q1, i).fma(x, a1);
      a2 = FloatVector.fromArray(SPECIES, q2, i).fma(x, a2);
      a3 = FloatVector.fromArray(SPECIES, q3, i).fma(x, a3);
      i += LANES;
    }
    float s0 = sumLanes(a0.add(b0));
    float s1 = sumLanes(a1.add(b1));
    float s2 = sumLanes(a2.add(b2));
    float s3 = sumLanes(a3.add(b3));
    for (; i < length; i++) {
      float d = value(docs, offset + i);
      s0 = Math.fma(q0[i], d, s0);
      s1 = Math.fma(q1[i], d, s1);
      s2 = Math.fma(q2[i], d, s2);
      s3 = Math.fma(q3[i], d, s3);
    }
    out[at] = s0;
    out[at + 1] = s1;
    out[at + 2] = s2;
    out[at + 3] = s3;
  }

  /** Eight floats of {@code docs} from index {@code at}. */
  private static FloatVector load(float[] docs, int at) {
    return FloatVector.fromArray(SPECIES, docs, at);
  }

  private static float value(float[] docs, int at) {
    return docs[at];
  }

  /** Lanes summed left to right: a fixed order, unlike {@code reduceLanes(ADD)}. */
  private static float sumLanes(FloatVector v) {
    return v.lane(0) + v.lane(1) + v.lane(2) + v.lane(3) + v.lane(4) + v.lane(5) + v.lane(6)
        + v.lane(7);
  }
}
