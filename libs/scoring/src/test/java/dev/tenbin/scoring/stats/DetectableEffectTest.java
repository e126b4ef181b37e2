package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class DetectableEffectTest {
  @Test
  void theEffectIsTheSumOfTheTwoStudentQuantilesTimesTheStandardError() {
    // R: qt(0.975, 99) = 1.984217, qt(0.8, 99) = 0.8452... ; (1.984217 + 0.845199) * 0.2 / 10
    assertThat(DetectableEffect.paired(0.2, 100, 0.05, 0.8)).isCloseTo(0.0565883, within(2e-6));
    // n -> infinity: (1.959964 + 0.841621) * sigma / sqrt(n)
    assertThat(DetectableEffect.paired(1, 1_000_000, 0.05, 0.8) * 1_000)
        .isCloseTo(2.801585, within(1e-4));
    assertThat(DetectableEffect.paired(0.2, 1, 0.05, 0.8)).isNaN();
  }

  @Test
  void aTrueEffectOfThatSizeIsFoundAboutEightTimesInTen() {
    int queries = 40;
    double sigma = 0.25;
    double effect = DetectableEffect.paired(sigma, queries, 0.05, 0.8);
    Random random = new Random(11);
    int trials = 2_000;
    int found = 0;
    for (int trial = 0; trial < trials; trial++) {
      double[] a = new double[queries];
      double[] b = new double[queries];
      for (int q = 0; q < queries; q++) {
        a[q] = effect + sigma * random.nextGaussian();
      }
      if (PairedTest.of(a, b, 0.95, 1, 1).tTestP() < 0.05) {
        found++;
      }
    }
    // power of the exact noncentral t at this effect is 0.80 (the approximation is within 0.01 at
    // n = 40); 2,000 trials have a standard error near 0.009
    assertThat((double) found / trials).isCloseTo(0.8, within(0.035));
  }

  @Test
  void identicalPairsAreLeftOutOfThePooledSpread() {
    double[] strong = new double[40];
    double[] other = new double[40];
    for (int q = 0; q < 40; q++) {
      strong[q] = 0.3 + 0.015 * q;
      other[q] = strong[q] - 0.1 + (q % 4 - 1.5) * 0.08;
    }
    PairedTest differing = PairedTest.of(strong, other, 0.95, 1, 1);
    PairedTest twins = PairedTest.of(strong, strong.clone(), 0.95, 1, 1);
    double alone = DetectableEffect.pooled(java.util.List.of(differing), 0.05, 0.8);
    assertThat(alone)
        .isEqualTo(DetectableEffect.paired(differing.sdDifference(), 40, 0.05, 0.8))
        .isPositive();
    // with the twins' sd of 0 pooled in, the root mean square would fall by sqrt(2)
    assertThat(DetectableEffect.pooled(java.util.List.of(differing, twins), 0.05, 0.8))
        .isEqualTo(alone);
    assertThat(DetectableEffect.pooled(java.util.List.of(twins), 0.05, 0.8)).isNaN();
    assertThat(DetectableEffect.pooled(java.util.List.of(), 0.05, 0.8)).isNaN();
  }
}
