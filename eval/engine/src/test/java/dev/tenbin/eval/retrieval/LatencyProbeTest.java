package dev.tenbin.eval.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.result.Latency;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
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

  private static List<Integer> items(int count) {
    List<Integer> items = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      items.add(i);
    }
    return items;
  }

  /**
   * A call that counts the calls in flight, keeps the most seen, and returns only once {@code
   * parties} calls are in flight together (a barrier: with fewer threads it would wait forever, so
   * the wait gives up after a minute and fails the call).
   */
  private static final class InFlight implements Consumer<Integer> {
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final AtomicInteger calls = new AtomicInteger();
    private final CyclicBarrier together;

    InFlight(int parties) {
      together = new CyclicBarrier(parties);
    }

    @Override
    public void accept(Integer item) {
      calls.incrementAndGet();
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
      try {
        together.await(1, TimeUnit.MINUTES);
      } catch (Exception e) {
        throw new IllegalStateException("fewer calls in flight than expected", e);
      } finally {
        now.decrementAndGet();
      }
    }
  }

  @Test
  void theConcurrentProbeKeepsExactlyCCallsInFlight() {
    InFlight call = new InFlight(4);

    ConcurrentLatency latency = LatencyProbe.concurrent(items(150), 4, call);

    // every call returned only once 4 were in flight together, and never more were
    assertThat(call.most.get()).isEqualTo(4);
    assertThat(call.calls.get()).isEqualTo(LatencyProbe.QUERIES);
    assertThat(latency.inFlight()).isEqualTo(4);
    assertThat(latency.p50Us()).isPositive().isLessThanOrEqualTo(latency.p99Us());
    assertThat(latency.queriesPerSecond()).isPositive();
  }

  @Test
  void theConcurrentTailSeesTheSlowQueriesTheMedianDoesNot() {
    // 2 of the first 100 queries take at least 20 ms, the rest return at once
    ConcurrentLatency latency =
        LatencyProbe.concurrent(
            items(150),
            4,
            i -> {
              if (i == 10 || i == 60) {
                sleep(20);
              }
            });
    // p99 of 100 lies between the 99th and 100th values, both slow ones
    assertThat(latency.p99Us()).isGreaterThanOrEqualTo(20_000);
    assertThat(latency.p50Us()).isLessThan(20_000);
  }

  @Test
  void queriesPerSecondAreTheQueriesOverTheWallTime() {
    // every call takes at least 2 ms: 100 calls, 4 at a time, take at least 25 × 2 ms, so at
    // most 2,000 queries per second; each call is timed from its start, so at least 2,000 µs
    ConcurrentLatency latency = LatencyProbe.concurrent(items(100), 4, i -> sleep(2));

    assertThat(latency.p50Us()).isGreaterThanOrEqualTo(2_000);
    assertThat(latency.queriesPerSecond()).isPositive().isLessThanOrEqualTo(2_000);
    // with one call in flight, the calls run one after the other: at most 500 per second
    assertThat(LatencyProbe.concurrent(items(100), 1, i -> sleep(2)).queriesPerSecond())
        .isLessThanOrEqualTo(500);
  }

  @Test
  void fewerQueriesThanTheConcurrencyAreAllInFlightTogether() {
    InFlight call = new InFlight(3);

    ConcurrentLatency latency = LatencyProbe.concurrent(items(3), 8, call);

    assertThat(call.calls.get()).isEqualTo(3);
    assertThat(call.most.get()).isEqualTo(3);
    assertThat(latency.inFlight()).isEqualTo(3);
  }

  @Test
  void noQueriesMeasureNothingConcurrentlyEither() {
    AtomicInteger calls = new AtomicInteger();
    assertThat(LatencyProbe.concurrent(List.of(), 4, x -> calls.incrementAndGet()))
        .isEqualTo(new ConcurrentLatency(0, 0, 0, 0));
    assertThat(calls.get()).isZero();
  }

  @Test
  void aFailingCallEndsTheMeasurementWithItsException() {
    RuntimeException boom = new IllegalStateException("index unavailable");
    AtomicInteger calls = new AtomicInteger();
    Consumer<Integer> failingAtFive =
        i -> {
          calls.incrementAndGet();
          if (i == 5) {
            throw boom;
          }
        };

    assertThatThrownBy(() -> LatencyProbe.concurrent(items(100), 1, failingAtFive)).isSameAs(boom);
    // one at a time: queries 0 to 5 ran, none after the failure
    assertThat(calls.get()).isEqualTo(6);
    assertThatThrownBy(() -> LatencyProbe.concurrent(items(100), 4, failingAtFive)).isSameAs(boom);
  }

  @Test
  void theConcurrencyIsAtLeastOne() {
    assertThatThrownBy(() -> LatencyProbe.concurrent(items(10), 0, x -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
