package dev.tenbin.drill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.proto.eval.v1.JobState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The drain drill's schedule and verdict, without starting any process. */
class DrainDrillTest {
  @Test
  void theScheduleIsTheSameForTheSameSeedAndStopsEveryServiceWithinTheDelayBound() {
    List<DrainDrill.Round> rounds = DrainDrill.schedule(20, 42);
    assertThat(rounds).isEqualTo(DrainDrill.schedule(20, 42)).hasSize(20);
    assertThat(rounds).isNotEqualTo(DrainDrill.schedule(20, 43));
    assertThat(rounds).extracting(DrainDrill.Round::number).startsWith(1, 2).endsWith(20);
    assertThat(rounds)
        .extracting(DrainDrill.Round::service)
        .containsAll(List.of(TenbinService.values()));
    assertThat(rounds)
        .allSatisfy(
            round -> assertThat(round.delay()).isBetween(Duration.ZERO, DrainDrill.MAX_DELAY));
  }

  private static DrainDrill.RoundResult result(
      int number, TenbinService service, JobState state, StoredCells cells) {
    return new DrainDrill.RoundResult(
        new DrainDrill.Round(number, service, Duration.ofMillis(100)),
        "dense:m on b/t",
        state,
        cells);
  }

  @Test
  void theDrillPassesOnlyWhenEveryJobSucceedsWithEachCellStoredOnceAndNothingCrashed() {
    List<DrainDrill.RoundResult> clean = new ArrayList<>();
    for (TenbinService service : TenbinService.values()) {
      clean.add(
          result(
              clean.size() + 1,
              service,
              JobState.JOB_STATE_SUCCEEDED,
              new StoredCells(6, 0, 0, 1)));
    }
    DrillResult pass = DrainDrill.verdict(clean, List.of(), "load");
    assertThat(pass.passed()).isTrue();
    assertThat(pass.result())
        .startsWith("4/4 jobs succeeded, 0 failed; 24 cells planned, 0 lost, 0 computed twice");
    assertThat(pass.faults()).contains("4 × SIGTERM", "index 1, encoder 1, rerank 1, eval 1");

    List<DrainDrill.RoundResult> failed = new ArrayList<>(clean);
    failed.add(
        result(5, TenbinService.INDEX, JobState.JOB_STATE_FAILED, new StoredCells(6, 2, 0, 0)));
    assertThat(DrainDrill.verdict(failed, List.of(), "load").passed()).isFalse();
    assertThat(DrainDrill.verdict(failed, List.of(), "load").result())
        .contains("1 failed", "2 lost");

    List<DrainDrill.RoundResult> twice = new ArrayList<>(clean);
    twice.add(
        result(5, TenbinService.EVAL, JobState.JOB_STATE_SUCCEEDED, new StoredCells(6, 0, 1, 0)));
    assertThat(DrainDrill.verdict(twice, List.of(), "load").passed()).isFalse();

    List<DrainDrill.RoundResult> hung = new ArrayList<>(clean);
    hung.add(result(5, TenbinService.RERANK, null, new StoredCells(6, 3, 0, 0)));
    assertThat(DrainDrill.verdict(hung, List.of(), "load").result()).contains("1 did not end");
    assertThat(DrainDrill.verdict(hung, List.of(), "load").passed()).isFalse();

    assertThat(DrainDrill.verdict(clean, List.of("encoder-3"), "load").passed()).isFalse();
  }
}
