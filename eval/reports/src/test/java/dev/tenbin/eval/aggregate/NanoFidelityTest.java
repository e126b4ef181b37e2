package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.scoring.stats.PairedTest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class NanoFidelityTest {
  private static CellRecord stored(String task, String system, double... perQuery) {
    return cell("bench", task, system, "base", Arrays.stream(perQuery).average().orElseThrow())
        .queryNdcg10(perQuery)
        .build();
  }

  /**
   * Four systems on a full set of 4 queries and a Nano-set of the same 4 queries: the Nano-set
   * scores everyone higher, keeps a and b in order, and swaps c and d.
   */
  private static List<CellRecord> full() {
    return List.of(
        stored("full", "dense:a", 0.9, 0.8, 0.7, 0.6),
        stored("full", "dense:b", 0.8, 0.7, 0.6, 0.5),
        stored("full", "dense:c", 0.6, 0.5, 0.4, 0.3),
        stored("full", "dense:d", 0.5, 0.5, 0.4, 0.2));
  }

  private static List<CellRecord> nano() {
    return List.of(
        stored("nano", "dense:a", 1.0, 0.9, 0.8, 0.7),
        stored("nano", "dense:b", 0.9, 0.8, 0.8, 0.6),
        stored("nano", "dense:c", 0.6, 0.6, 0.5, 0.4),
        stored("nano", "dense:d", 0.7, 0.6, 0.5, 0.5));
  }

  @Test
  void ranksOrderAndTheirAgreementAreComparedSystemBySystem() {
    NanoFidelity fidelity = NanoFidelity.compare(nano(), full(), null, null, "ndcg@10", 2);

    assertThat(fidelity.systems())
        .extracting(s -> s.row().system().model())
        .containsExactly("a", "b", "c", "d");
    assertThat(fidelity.systems())
        .extracting(NanoFidelity.SystemFidelity::fullRank)
        .containsExactly(1, 2, 3, 4);
    assertThat(fidelity.systems())
        .extracting(NanoFidelity.SystemFidelity::nanoRank)
        .containsExactly(1, 2, 4, 3);
    // 6 pairs, only c-d swapped: tau = (5 - 1) / 6
    assertThat(fidelity.pairs()).isEqualTo(6);
    assertThat(fidelity.pairsAgreeing()).isEqualTo(5);
    assertThat(fidelity.kendallTau()).isCloseTo(4.0 / 6, within(1e-12));
    // ranks 1,2,4,3 against 1,2,3,4: rho = 1 - 6 * 2 / (4 * 15)
    assertThat(fidelity.spearman()).isCloseTo(0.8, within(1e-12));
    assertThat(fidelity.topK()).isEqualTo(2);
    assertThat(fidelity.topKShared()).isEqualTo(2);
  }

  @Test
  void eachSystemsDifferenceHasItsPairedIntervalOverTheSharedQueries() {
    NanoFidelity fidelity = NanoFidelity.compare(nano(), full(), null, null, "ndcg@10", 3);
    NanoFidelity.SystemFidelity b = fidelity.systems().get(1);
    PairedTest direct =
        PairedTest.of(
            new double[] {0.9, 0.8, 0.8, 0.6}, new double[] {0.8, 0.7, 0.6, 0.5}, 0.95, 1, 0);
    assertThat(b.sharedQueries()).isEqualTo(4);
    assertThat(b.delta()).isCloseTo(100 * 0.125, within(1e-9));
    assertThat(b.deltaInterval().low())
        .isCloseTo(100 * direct.differenceInterval().low(), within(1e-9));
    assertThat(b.deltaInterval().low()).isGreaterThan(0);
    assertThat(b.nano() - b.full()).isCloseTo(b.delta(), within(1e-9));
  }

  @Test
  void jobsWithSeveralTasksNeedTheTaskNamed() {
    List<CellRecord> both = new ArrayList<>(full());
    both.addAll(nano());
    assertThatThrownBy(() -> NanoFidelity.compare(both, both, null, null, "ndcg@10", 3))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the job holds 2 tasks");
    NanoFidelity named = NanoFidelity.compare(both, both, "nano", "full", "ndcg@10", 3);
    assertThat(named.pairsAgreeing()).isEqualTo(5);
    assertThatThrownBy(() -> NanoFidelity.compare(both, both, "tiny", "full", "ndcg@10", 3))
        .hasMessageContaining("--nano-task tiny is none of the job's tasks");
  }
}
