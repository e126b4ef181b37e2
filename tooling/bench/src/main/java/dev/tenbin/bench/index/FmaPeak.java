package dev.tenbin.bench.index;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The one definition of this machine's float peak that scan speeds are a fraction of: 256-bit fused
 * multiply-adds on operands held in registers, {@value #CHAINS} independent dependency chains per
 * core (enough to cover the FMA latency of every current x86 core with two FMA units), on every
 * core. It is measured by the JMH benchmark {@code DenseScanBenchmarks.fmaPeak} ({@code ./tenbin
 * jmh 'DenseScanBenchmarks.fmaPeak'}); the benches take that figure as {@code --peak-gflops} rather
 * than timing a loop of their own.
 *
 * <p>No memory is read inside the loop. (Until 2026-11-25 the kernel multiplied two in-cache
 * arrays, two loads per FMA, which bounds it by the load ports at half the FMA rate on cores with
 * two of each: a batched scan, which loads each stored vector once for many queries, then measured
 * above that "peak".)
 */
public final class FmaPeak {
  private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_256;

  private static final VectorSpecies<Float> SPECIES_512 = FloatVector.SPECIES_512;

  /** Independent accumulators: with the two operands, 14 vector registers (AVX2 has 16). */
  static final int CHAINS = 12;

  /** Passes over the chains per round. */
  private static final int STEPS_PER_ROUND = 16;

  /** Floats in each of the two arrays the operands are taken from. */
  public static final int LENGTH = 1024;

  private FmaPeak() {}

  /** FLOP of {@link #kernel512} for {@code rounds} rounds. */
  public static long flop512(int rounds) {
    return 2L * SPECIES_512.length() * CHAINS * STEPS_PER_ROUND * rounds;
  }

  /** FLOP of {@link #kernel} for {@code rounds} rounds. */
  public static long flop(int rounds) {
    return 2L * SPECIES.length() * CHAINS * STEPS_PER_ROUND * rounds;
  }

  /** GFLOP/s of a JMH {@code fmaPeak} operation: {@code threads} kernels of {@code rounds}. */
  public static double gflops(int threads, int rounds, double microsecondsPerOperation) {
    return threads * flop(rounds) / (microsecondsPerOperation * 1e3);
  }

  /**
   * The FMA kernel: {@value #CHAINS} accumulators (started from {@code b}), each updated as {@code
   * acc = acc · x + y} with {@code x} and {@code y} read once from {@code a} ({@value #LENGTH}
   * floats each), {@link #flop} FLOP for {@code rounds} rounds. With |x| &lt; 1 every chain
   * converges, so no value overflows or becomes subnormal. Returns the sum so the work is kept.
   */
  public static double kernel(float[] a, float[] b, int rounds) {
    if (a.length != LENGTH || b.length != LENGTH) {
      throw new IllegalArgumentException("the peak kernel reads two arrays of " + LENGTH);
    }
    int step = SPECIES.length();
    FloatVector x = FloatVector.fromArray(SPECIES, a, 0).mul(0.5f);
    FloatVector y = FloatVector.fromArray(SPECIES, a, step);
    FloatVector c0 = FloatVector.fromArray(SPECIES, b, 0);
    FloatVector c1 = FloatVector.fromArray(SPECIES, b, step);
    FloatVector c2 = FloatVector.fromArray(SPECIES, b, 2 * step);
    FloatVector c3 = FloatVector.fromArray(SPECIES, b, 3 * step);
    FloatVector c4 = FloatVector.fromArray(SPECIES, b, 4 * step);
    FloatVector c5 = FloatVector.fromArray(SPECIES, b, 5 * step);
    FloatVector c6 = FloatVector.fromArray(SPECIES, b, 6 * step);
    FloatVector c7 = FloatVector.fromArray(SPECIES, b, 7 * step);
    FloatVector c8 = FloatVector.fromArray(SPECIES, b, 8 * step);
    FloatVector c9 = FloatVector.fromArray(SPECIES, b, 9 * step);
    FloatVector c10 = FloatVector.fromArray(SPECIES, b, 10 * step);
    FloatVector c11 = FloatVector.fromArray(SPECIES, b, 11 * step);
    int steps = STEPS_PER_ROUND * rounds;
    for (int s = 0; s < steps; s++) {
      c0 = c0.fma(x, y);
      c1 = c1.fma(x, y);
      c2 = c2.fma(x, y);
      c3 = c3.fma(x, y);
      c4 = c4.fma(x, y);
      c5 = c5.fma(x, y);
      c6 = c6.fma(x, y);
      c7 = c7.fma(x, y);
      c8 = c8.fma(x, y);
      c9 = c9.fma(x, y);
      c10 = c10.fma(x, y);
      c11 = c11.fma(x, y);
    }
    return c0.add(c1)
        .add(c2)
        .add(c3)
        .add(c4)
        .add(c5)
        .add(c6)
        .add(c7)
        .add(c8)
        .add(c9)
        .add(c10)
        .add(c11)
        .reduceLanes(VectorOperators.ADD);
  }

  /**
   * {@link #kernel} on 512-bit vectors: the peak of a library that uses AVX-512 where the core has
   * it (ONNX Runtime's MLAS does), {@link #flop512} FLOP for {@code rounds} rounds. Where the core
   * has no 512-bit FMA the JIT splits each operation and the figure equals {@link #kernel}'s or
   * falls below it.
   */
  public static double kernel512(float[] a, float[] b, int rounds) {
    if (a.length != LENGTH || b.length != LENGTH) {
      throw new IllegalArgumentException("the peak kernel reads two arrays of " + LENGTH);
    }
    int step = SPECIES_512.length();
    FloatVector x = FloatVector.fromArray(SPECIES_512, a, 0).mul(0.5f);
    FloatVector y = FloatVector.fromArray(SPECIES_512, a, step);
    FloatVector c0 = FloatVector.fromArray(SPECIES_512, b, 0);
    FloatVector c1 = FloatVector.fromArray(SPECIES_512, b, step);
    FloatVector c2 = FloatVector.fromArray(SPECIES_512, b, 2 * step);
    FloatVector c3 = FloatVector.fromArray(SPECIES_512, b, 3 * step);
    FloatVector c4 = FloatVector.fromArray(SPECIES_512, b, 4 * step);
    FloatVector c5 = FloatVector.fromArray(SPECIES_512, b, 5 * step);
    FloatVector c6 = FloatVector.fromArray(SPECIES_512, b, 6 * step);
    FloatVector c7 = FloatVector.fromArray(SPECIES_512, b, 7 * step);
    FloatVector c8 = FloatVector.fromArray(SPECIES_512, b, 8 * step);
    FloatVector c9 = FloatVector.fromArray(SPECIES_512, b, 9 * step);
    FloatVector c10 = FloatVector.fromArray(SPECIES_512, b, 10 * step);
    FloatVector c11 = FloatVector.fromArray(SPECIES_512, b, 11 * step);
    int steps = STEPS_PER_ROUND * rounds;
    for (int s = 0; s < steps; s++) {
      c0 = c0.fma(x, y);
      c1 = c1.fma(x, y);
      c2 = c2.fma(x, y);
      c3 = c3.fma(x, y);
      c4 = c4.fma(x, y);
      c5 = c5.fma(x, y);
      c6 = c6.fma(x, y);
      c7 = c7.fma(x, y);
      c8 = c8.fma(x, y);
      c9 = c9.fma(x, y);
      c10 = c10.fma(x, y);
      c11 = c11.fma(x, y);
    }
    return c0.add(c1)
        .add(c2)
        .add(c3)
        .add(c4)
        .add(c5)
        .add(c6)
        .add(c7)
        .add(c8)
        .add(c9)
        .add(c10)
        .add(c11)
        .reduceLanes(VectorOperators.ADD);
  }
}
