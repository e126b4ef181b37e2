package dev.tenbin.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The trend of a sampled measure: warm-up left out, slopes fitted within each process. */
class TrendTest {
  private static ProcessSample sample(int generation, long atMillis, long rssMib) {
    return new ProcessSample(
        TenbinService.ENCODER, generation, 100 + generation, atMillis, rssMib << 20, 30, 40, -1, 1);
  }

  private static double rssMib(ProcessSample sample) {
    return sample.rssBytes() / (1024.0 * 1024.0);
  }

  @Test
  void aRestartsDropInLevelIsNotASlope() {
    List<ProcessSample> samples = new ArrayList<>();
    for (int minute = 0; minute < 10; minute++) {
      samples.add(sample(1, minute * 60_000L, 500 + minute));
    }
    for (int minute = 10; minute < 20; minute++) {
      samples.add(sample(2, minute * 60_000L, 200 + (minute - 10)));
    }

    Trend trend = Trend.of(samples, Map.of(1, 0L, 2, 600_000L), 0, TrendTest::rssMib);

    assertThat(trend.perHour()).isCloseTo(60.0, within(1e-6));
    assertThat(trend.atWarmUpEnd()).isEqualTo(500.0);
    assertThat(trend.atEnd()).isEqualTo(209.0);
    assertThat(trend.samples()).isEqualTo(20);
  }

  @Test
  void samplesInEachProcessWarmUpAreLeftOut() {
    List<ProcessSample> samples =
        List.of(
            sample(1, 0, 100),
            sample(1, 60_000, 400),
            sample(1, 120_000, 400),
            sample(1, 180_000, 400));

    Trend trend = Trend.of(samples, Map.of(1, 0L), 60_000, TrendTest::rssMib);

    assertThat(trend.perHour()).isZero();
    assertThat(trend.atWarmUpEnd()).isEqualTo(400.0);
    assertThat(trend.samples()).isEqualTo(3);
  }

  @Test
  void absentValuesGiveNoSlope() {
    List<ProcessSample> samples = List.of(sample(1, 0, 100), sample(1, 60_000, 100));

    Trend trend = Trend.of(samples, Map.of(1, 0L), 0, sample -> Double.NaN);

    assertThat(trend.perHour()).isNaN();
    assertThat(trend.atWarmUpEnd()).isNaN();
    assertThat(trend.samples()).isZero();
  }
}
