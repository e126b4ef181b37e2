package dev.tenbin.index.bench;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The one definition of this machine's float peak that scan speeds are a fraction of: 256-bit FMA
 * over two in-cache arrays of {@value #LENGTH} floats with 8 independent accumulators, on every
 * core. It is measured by the JMH benchmark {@code DenseScanBenchmarks.fmaPeak} ({@code ./tenbin
 * jmh 'DenseScanBenchmarks.fmaPeak'}); the benches take that figure as {@code --peak-gflops} rather
 * than timing a loop of their own.
 */
public final class FmaPeak {
  private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_256;

  /** Floats in each of the two arrays. */
  public static final int LENGTH = 1024;

  private FmaPeak() {}

  /** FLOP of {@link #kernel} for {@code rounds} rounds. */
  public static long flop(int rounds) {
    return 2L * LENGTH * rounds;
  }

  /** GFLOP/s of a JMH {@code fmaPeak} operation: {@code threads} kernels of {@code rounds}. */
  public static double gflops(int threads, int rounds, double microsecondsPerOperation) {
    return threads * flop(rounds) / (microsecondsPerOperation * 1e3);
  }

  /**
   * The FMA kernel: 8 independent accumulators over {@code a} and {@code b} ({@value #LENGTH}
   * floats each), {@code rounds} passes ({@link #flop} FLOP). Returns the sum so the work is kept.
   */
  public static double kernel(float[] a, float[] b, int rounds) {
    if (a.length != LENGTH || b.length != LENGTH) {
      throw new IllegalArgumentException("the peak kernel reads two arrays of " + LENGTH);
    }
    int step = SPECIES.length();
    FloatVector a0 = FloatVector.zero(SPECIES);
    FloatVector a1 = FloatVector.zero(SPECIES);
    FloatVector a2 = FloatVector.zero(SPECIES);
    FloatVector a3 = FloatVector.zero(SPECIES);
    FloatVector a4 = FloatVector.zero(SPECIES);
    FloatVector a5 = FloatVector.zero(SPECIES);
    FloatVector a6 = FloatVector.zero(SPECIES);
    FloatVector a7 = FloatVector.zero(SPECIES);
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < LENGTH; i += 8 * step) {
        a0 = FloatVector.fromArray(SPECIES, a, i).fma(FloatVector.fromArray(SPECIES, b, i), a0);
        a1 =
            FloatVector.fromArray(SPECIES, a, i + step)
                .fma(FloatVector.fromArray(SPECIES, b, i + step), a1);
        a2 =
            FloatVector.fromArray(SPECIES, a, i + 2 * step)
                .fma(FloatVector.fromArray(SPECIES, b, i + 2 * step), a2);
        a3 =
            FloatVector.fromArray(SPECIES, a, i + 3 * step)
                .fma(FloatVector.fromArray(SPECIES, b, i + 3 * step), a3);
        a4 =
            FloatVector.fromArray(SPECIES, a, i + 4 * step)
                .fma(FloatVector.fromArray(SPECIES, b, i + 4 * step), a4);
        a5 =
            FloatVector.fromArray(SPECIES, a, i + 5 * step)
                .fma(FloatVector.fromArray(SPECIES, b, i + 5 * step), a5);
        a6 =
            FloatVector.fromArray(SPECIES, a, i + 6 * step)
                .fma(FloatVector.fromArray(SPECIES, b, i + 6 * step), a6);
        a7 =
            FloatVector.fromArray(SPECIES, a, i + 7 * step)
                .fma(FloatVector.fromArray(SPECIES, b, i + 7 * step), a7);
      }
    }
    return a0.add(a1)
        .add(a2)
        .add(a3)
        .add(a4)
        .add(a5)
        .add(a6)
        .add(a7)
        .reduceLanes(VectorOperators.ADD);
  }
}
