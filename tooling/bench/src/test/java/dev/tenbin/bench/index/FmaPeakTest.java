package dev.tenbin.bench.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The peak kernel does the FLOP it is credited with, and no more or less. */
class FmaPeakTest {
  @Test
  void theKernelComputesItsChainsOfFusedMultiplyAddsAndIsCreditedTwoFlopPerLanePerStep() {
    float[] a = new float[FmaPeak.LENGTH];
    float[] b = new float[FmaPeak.LENGTH];
    for (int i = 0; i < FmaPeak.LENGTH; i++) {
      a[i] = 1e-3f * i;
      b[i] = 1e-3f * (i % 97);
    }
    int lanes = 8;
    for (int rounds : new int[] {1, 3}) {
      // The same chains lane by lane: acc = fma(acc, x, y), 16 steps per round.
      double expected = 0;
      for (int chain = 0; chain < FmaPeak.CHAINS; chain++) {
        for (int lane = 0; lane < lanes; lane++) {
          float x = a[lane] * 0.5f;
          float y = a[lanes + lane];
          float acc = b[chain * lanes + lane];
          for (int s = 0; s < 16 * rounds; s++) {
            acc = Math.fma(acc, x, y);
          }
          expected += acc;
        }
      }
      assertThat(FmaPeak.kernel(a, b, rounds)).isCloseTo(expected, within(1e-4));
      assertThat(FmaPeak.flop(rounds)).isEqualTo(2L * lanes * FmaPeak.CHAINS * 16 * rounds);
    }
    assertThat(FmaPeak.gflops(2, 2000, 100.0)).isEqualTo(2 * FmaPeak.flop(2000) / 1e5);
  }
}
