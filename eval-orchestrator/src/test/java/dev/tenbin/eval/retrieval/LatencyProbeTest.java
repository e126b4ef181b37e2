package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.result.Latency;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LatencyProbeTest {
  @Test
  void theTailSeesTheSlowQueriesTheMedianDoesNot() {
    List<Integer> items = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      items.add(i);
    }
    AtomicInteger calls = new AtomicInteger();
    // 2 of the first 100 queries take at least 20 ms, the rest return at once
    Latency latency =
        LatencyProbe.micros(
            items,
            i -> {
              calls.incrementAndGet();
              if (i == 10 || i == 60) {
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    assertThat(calls.get()).isEqualTo(LatencyProbe.QUERIES);
    // p99 of 100 lies between the 99th and 100th values, both slow ones
    assertThat(latency.p99Us()).isGreaterThanOrEqualTo(20_000);
    assertThat(latency.p50Us()).isLessThan(20_000);
  }

  @Test
  void noQueriesMeasureNothing() {
    assertThat(LatencyProbe.micros(List.of(), x -> {})).isEqualTo(new Latency(0, 0));
  }
}
