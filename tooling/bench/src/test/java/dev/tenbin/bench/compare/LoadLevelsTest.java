package dev.tenbin.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The levels a server-CPU bench measures, and how each side is charged at one level. */
class LoadLevelsTest {
  @Test
  void theDefaultLevelsAreOneTheCoresAndFourTimesTheCores() {
    assertThat(LoadLevels.levels(null, 2)).containsExactly(1, 2, 8);
    assertThat(LoadLevels.levels(null, 16)).containsExactly(1, 16, 64);
    assertThat(LoadLevels.levels(null, 1)).as("each level once").containsExactly(1, 4);
  }

  @Test
  void givenLevelsAreKeptInOrderAndOneBelowOneIsRefusedNamingTheFlag() {
    assertThat(LoadLevels.levels(List.of(8, 1, 2), 2)).containsExactly(8, 1, 2);
    assertThatThrownBy(() -> LoadLevels.levels(List.of(1, 0), 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("every --in-flight must be at least 1, got [1,0]");
    assertThatThrownBy(() -> LoadLevels.levels(List.of(), 2))
        .hasMessageContaining("every --in-flight must be at least 1");
  }

  @Test
  void cpuPerCallAndCallsPerSecondFollowFromTheTotals() {
    LoadLevels.Usage usage = new LoadLevels.Usage(4, 2_000_000_000L, List.of(8_000L, 4_000L));

    assertThat(usage.cpuMicrosPerCall(0)).isEqualTo(2.0);
    assertThat(usage.cpuMicrosPerCall(1)).isEqualTo(1.0);
    assertThat(usage.callsPerSecond()).isEqualTo(2.0);
    assertThatThrownBy(() -> new LoadLevels.Usage(0, 1, List.of()))
        .hasMessageContaining("at least one call");
  }

  @Test
  void eachSideIsChargedItsOwnClocksOverTwoRoundsTakenInTurn() {
    // Each call of a side moves that side's clock on by 1,000 ns, and the other side's not at all.
    AtomicLong first = new AtomicLong();
    AtomicLong second = new AtomicLong();
    AtomicLong idle = new AtomicLong(123);
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    LoadLevels.Side a =
        new LoadLevels.Side(
            i -> {
              first.addAndGet(1_000);
              order.add("a");
            },
            List.of(first::get));
    LoadLevels.Side b =
        new LoadLevels.Side(
            i -> {
              second.addAndGet(3_000);
              order.add("b");
            },
            List.of(second::get, idle::get));

    List<LoadLevels.Usage> used = LoadLevels.measure(1, 7, List.of(a, b));

    assertThat(used).hasSize(2);
    assertThat(used.get(0).calls()).as("rounded down to two equal rounds").isEqualTo(6);
    assertThat(used.get(0).cpuMicrosPerCall(0)).isEqualTo(1.0);
    assertThat(used.get(1).cpuMicrosPerCall(0)).isEqualTo(3.0);
    assertThat(used.get(1).cpuMicrosPerCall(1)).isZero();
    assertThat(String.join("", order)).isEqualTo("aaabbbaaabbb");
  }

  @Test
  void theWarmUpRunsEverySideAndAtLeastTwoCallsAreMeasured() {
    AtomicInteger calls = new AtomicInteger();
    LoadLevels.Side side = new LoadLevels.Side(i -> calls.incrementAndGet(), List.of(() -> 0L));

    LoadLevels.warmUp(3, 50, List.of(side, side));
    assertThat(calls).hasValue(100);
    assertThat(LoadLevels.measure(2, 1, List.of(side)).get(0).calls()).isEqualTo(2);
  }

  @Test
  void aFailingCallStopsTheOtherThreadsAndIsThrown() {
    AtomicInteger calls = new AtomicInteger();
    LoadLevels.Side side =
        new LoadLevels.Side(
            i -> {
              calls.incrementAndGet();
              if (i == 5) {
                throw new IllegalStateException("call 5 failed");
              }
            },
            List.of(() -> 0L));

    assertThatThrownBy(() -> LoadLevels.measure(4, 2_000_000, List.of(side)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("call 5 failed");
    // The other threads stop at their next call once the failure is seen: nowhere near the two
    // million calls asked for. (How many they make before then depends on the scheduler: on a
    // loaded machine a few hundred, so the bound is loose.)
    assertThat(calls.get()).isLessThan(100_000);
  }
}
