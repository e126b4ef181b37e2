package dev.tenbin.scoring.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class PairedTestTest {
  // Student's sleep data (R's datasets::sleep): extra hours of sleep under two drugs, 10 patients.
  private static final double[] DRUG_1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
  private static final double[] DRUG_2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

  @Test
  void theTTestEqualsRsPairedTTestOnTheSleepData() {
    // R 4.x: t.test(DRUG_1, DRUG_2, paired = TRUE) -> t = -4.0621, df = 9, p-value = 0.002833,
    // 95 percent confidence interval -2.4598858 -0.7001142, mean difference -1.58
    PairedTest test = PairedTest.of(DRUG_1, DRUG_2, 0.95, 1_000, 1);
    assertThat(test.queries()).isEqualTo(10);
    assertThat(test.meanDifference()).isCloseTo(-1.58, within(1e-12));
    assertThat(test.t()).isCloseTo(-4.0621, within(5e-5));
    assertThat(test.tTestP()).isCloseTo(0.002833, within(5e-7));
    assertThat(test.differenceInterval().low()).isCloseTo(-2.4598858, within(5e-8));
    assertThat(test.differenceInterval().high()).isCloseTo(-0.7001142, within(5e-8));
  }

  @Test
  void theRandomizationTestEnumeratesEverySignAssignmentOnSmallSets() {
    // d = -1.2 -2.4 -1.3 -1.3 0 -1.0 -1.8 -0.8 -4.6 -1.4: only "all negative" and its mirror reach
    // |sum| = 15.8, each twice (the zero's sign is free): 4 of 2^10 assignments.
    PairedTest sleep = PairedTest.of(DRUG_1, DRUG_2, 0.95, 1_000, 1);
    assertThat(sleep.exact()).isTrue();
    assertThat(sleep.randomizationP()).isEqualTo(4.0 / 1024);
    // d = 1, 2, 3: only +++ and --- reach |sum| = 6: 2 of 8.
    assertThat(
            PairedTest.of(new double[] {1, 2, 3}, new double[] {0, 0, 0}, 0.95, 1, 1)
                .randomizationP())
        .isEqualTo(0.25);
    // d = 1, 1: ++ and -- reach 2, +- and -+ give 0: 2 of 4.
    assertThat(PairedTest.of(new double[] {1, 1}, new double[] {0, 0}, 0.95, 1, 1).randomizationP())
        .isEqualTo(0.5);
  }

  @Test
  void sumsEqualUpToRoundingCountAsReachingTheObservedOne() {
    // 0.1 + 0.2 and 0.3 differ in the last bit; flipping both signs must still tie |sum|
    PairedTest test =
        PairedTest.of(new double[] {0.3, 0.1, 0.2}, new double[] {0, 0, 0}, 0.95, 1, 1);
    // +++ and --- reach 0.6; so do none of the others (0.3 + 0.1 - 0.2 = 0.2, ...): 2 of 8
    assertThat(test.randomizationP()).isEqualTo(0.25);
    PairedTest balanced =
        PairedTest.of(new double[] {0.3, 0, 0}, new double[] {0, 0.1, 0.2}, 0.95, 1, 1);
    // d = 0.3, -0.1, -0.2: observed |sum| is 0 (to rounding), which every assignment reaches
    assertThat(balanced.randomizationP()).isEqualTo(1.0);
  }

  @Test
  void theSampledRandomizationTestAgreesWithFullEnumerationBeyondTheExactLimit() {
    Random random = new Random(7);
    int n = PairedTest.EXACT_UP_TO + 1;
    double[] a = new double[n];
    double[] b = new double[n];
    for (int i = 0; i < n; i++) {
      a[i] = random.nextDouble();
      b[i] = a[i] - 0.1 + 0.5 * (random.nextDouble() - 0.5);
    }
    double exact = enumerate(a, b);
    PairedTest sampled = PairedTest.of(a, b, 0.95, 100_000, 3);
    assertThat(sampled.exact()).isFalse();
    // binomial standard error at 100,000 draws is below 0.0016; allow 3 of them
    assertThat(sampled.randomizationP()).isCloseTo(exact, within(0.005));
    assertThat(PairedTest.of(a, b, 0.95, 100_000, 3)).isEqualTo(sampled);
  }

  @Test
  void equalSystemsAreNotDifferentAndAConstantShiftIsCertain() {
    double[] a = {0.5, 0.75, 1.0, 0.25};
    PairedTest same = PairedTest.of(a, a, 0.95, 10, 1);
    assertThat(same.tTestP()).isEqualTo(1.0);
    assertThat(same.randomizationP()).isEqualTo(1.0);
    assertThat(same.differenceInterval()).isEqualTo(new Interval(0, 0));
    // a shift of 0.25 in binary fractions, so that every difference is exactly the same number
    double[] shifted = {0.25, 0.5, 0.75, 0.0};
    PairedTest shift = PairedTest.of(a, shifted, 0.95, 10, 1);
    assertThat(shift.tTestP()).isEqualTo(0.0);
    assertThat(shift.t()).isEqualTo(Double.POSITIVE_INFINITY);
    // the randomization test cannot go below 2 of 2^4 assignments
    assertThat(shift.randomizationP()).isEqualTo(2.0 / 16);
  }

  @Test
  void oneQueryCannotBeTestedAndBadArgumentsAreRefused() {
    PairedTest one = PairedTest.of(new double[] {1}, new double[] {0}, 0.95, 10, 1);
    assertThat(one.tTestP()).isNaN();
    assertThat(one.randomizationP()).isEqualTo(1.0);
    assertThatThrownBy(() -> PairedTest.of(new double[] {1}, new double[] {}, 0.95, 10, 1))
        .hasMessageContaining("differ in length");
    assertThatThrownBy(() -> PairedTest.of(new double[] {1}, new double[] {1}, 1.0, 10, 1))
        .hasMessageContaining("level");
  }

  /** Every one of the 2^n sign assignments, written plainly: the reference for the sampled test. */
  private static double enumerate(double[] a, double[] b) {
    int n = a.length;
    double observed = 0;
    for (int i = 0; i < n; i++) {
      observed += a[i] - b[i];
    }
    observed = Math.abs(observed);
    long hits = 0;
    for (int signs = 0; signs < 1 << n; signs++) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += ((signs >> i) & 1) == 1 ? b[i] - a[i] : a[i] - b[i];
      }
      if (Math.abs(sum) >= observed - 1e-12) {
        hits++;
      }
    }
    return (double) hits / (1 << n);
  }

  @Test
  void aSampledPThatNoDrawReachedIsTheResolutionLimitAndSaysSo() {
    double[] a = new double[30];
    double[] b = new double[30];
    for (int q = 0; q < 30; q++) {
      a[q] = 0.5 + 0.01 * q;
      b[q] = a[q] - 0.2 - 0.001 * (q % 3);
    }
    PairedTest sampled = PairedTest.of(a, b, 0.95, 999, 7);
    assertThat(sampled.randomizationP()).isEqualTo(1.0 / 1000);
    assertThat(PairedTest.resolutionLimit(999)).isEqualTo(sampled.randomizationP());
    assertThat(sampled.randomizationAtLimit(999)).isTrue();
    // a p some draws reached is a value, not a bound
    double[] noisy = a.clone();
    for (int q = 0; q < 30; q++) {
      noisy[q] += q % 2 == 0 ? 0.1 : -0.1;
    }
    assertThat(PairedTest.of(noisy, a, 0.95, 999, 7).randomizationAtLimit(999)).isFalse();
    // an exact p is never at a sampling limit, however small
    PairedTest exact =
        PairedTest.of(java.util.Arrays.copyOf(a, 12), java.util.Arrays.copyOf(b, 12), 0.95, 999, 7);
    assertThat(exact.exact()).isTrue();
    assertThat(exact.randomizationAtLimit(999)).isFalse();
  }

  @Test
  void identicalSystemsAreThoseWhoseEveryDifferenceIsZero() {
    double[] a = {0.1, 0.5, 0.9};
    assertThat(PairedTest.of(a, a.clone(), 0.95, 10, 1).identical()).isTrue();
    // a constant shift also has sd 0, but the systems differ
    assertThat(PairedTest.of(a, new double[] {0.0, 0.4, 0.8}, 0.95, 10, 1).identical()).isFalse();
    assertThat(PairedTest.of(a, new double[] {0.1, 0.5, 0.8}, 0.95, 10, 1).identical()).isFalse();
  }
}
