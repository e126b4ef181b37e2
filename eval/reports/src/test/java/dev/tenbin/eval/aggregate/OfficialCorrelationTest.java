package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.testing.SyntheticCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.SystemRef;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OfficialCorrelationTest {
  @Test
  void officialRanksAreMatchedBySystemOrModelIdAndOrientedSoHigherIsBetter() {
    List<CellRecord> cells = new ArrayList<>();
    double[] ours = {0.60, 0.50, 0.40, 0.30, 0.20};
    String[] systems = {"dense:a", "dense:b", "dense:c", "dense:d", "bm25"};
    for (int i = 0; i < systems.length; i++) {
      cells.add(cell("b", "t", systems[i], "base", ours[i]).build());
      cells.add(cell("b", "t", systems[i], "int8", ours[i] - 0.01).build());
    }
    // official order a, c, b, d, bm25 (ranks 1..5); "unknown" is not ours
    OfficialRanking official =
        OfficialRanking.parse(
            "model,rank\na,1\ndense:c,2\nB,3\nd,4\nbm25,5\nunknown,6\n", "test.csv", "--official");

    Leaderboard board =
        Leaderboard.of(
            cells, LeaderboardOptions.defaults().withBootstrapDraws(0).withOfficial(official));
    OfficialCorrelation correlation = board.correlation();

    assertThat(correlation.matches())
        .extracting(m -> m.row().id())
        .containsExactly(
            "dense:a/base/retrieval",
            "dense:c/base/retrieval",
            "dense:b/base/retrieval",
            "dense:d/base/retrieval",
            "bm25/base/retrieval");
    assertThat(correlation.unmatched()).containsExactly("unknown");
    // ours by rank: a1 b2 c3 d4 bm25 5 vs theirs a1 c2 b3 d4 bm25 5: d^2 = 2, rho = 1 - 6*2/(5*24)
    // = 0.9
    assertThat(correlation.spearman()).isCloseTo(0.9, within(1e-12));
    assertThat(correlation.spearmanInterval()).isNotNull();
    assertThat(correlation.pearsonInterval().low())
        .isLessThanOrEqualTo(correlation.pearsonInterval().high());
  }

  @Test
  void correlationIntervalsAreDeterministicForASeed() {
    double[] ours = {0.61, 0.52, 0.44, 0.47, 0.20, 0.35, 0.58};
    List<OfficialCorrelation.Scored> scored = new ArrayList<>();
    StringBuilder csv = new StringBuilder("model,score\n");
    for (int i = 0; i < ours.length; i++) {
      scored.add(
          new OfficialCorrelation.Scored(
              new RowKey(SystemRef.stored("dense", "m" + i), "base", "retrieval"), ours[i]));
      csv.append("m").append(i).append(',').append(ours[i] + 0.1 * Math.sin(i)).append('\n');
    }
    OfficialRanking official = OfficialRanking.parse(csv.toString(), "x", "--official");

    OfficialCorrelation first = OfficialCorrelation.compute(official, scored, 2_000, 7);
    OfficialCorrelation again = OfficialCorrelation.compute(official, scored, 2_000, 7);
    OfficialCorrelation other = OfficialCorrelation.compute(official, scored, 2_000, 8);

    assertThat(again.spearmanInterval()).isEqualTo(first.spearmanInterval());
    assertThat(again.pearsonInterval()).isEqualTo(first.pearsonInterval());
    assertThat(other.pearsonInterval()).isNotEqualTo(first.pearsonInterval());
    assertThat(first.pearsonInterval().contains(first.pearson())).isTrue();
  }

  @Test
  void aMalformedOfficialFileIsRejectedNamingTheOption() {
    assertThatThrownBy(() -> OfficialRanking.parse("name,points\na,1\n", "x.csv", "--official"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--official")
        .hasMessageContaining("model,score");
    assertThatThrownBy(() -> OfficialRanking.parse("model,score\na,high\n", "x.csv", "--official"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("line 2");
    assertThat(OfficialRanking.parse("model,score\n\"org/model, v2\",0.5\n", "x", "f").values())
        .containsEntry("org/model, v2", 0.5);
  }
}
