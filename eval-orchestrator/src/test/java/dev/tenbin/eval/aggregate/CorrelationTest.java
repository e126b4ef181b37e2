package dev.tenbin.eval.aggregate;

import static dev.tenbin.eval.aggregate.TestCells.cell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.store.CellRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CorrelationTest {
  @Test
  void pearsonAndSpearmanMatchHandComputedValues() {
    // dx = dy-permuted: sxy = 8, sxx = syy = 10
    assertThat(Correlation.pearson(new double[] {1, 2, 3, 4, 5}, new double[] {2, 1, 4, 3, 5}))
        .isCloseTo(0.8, within(1e-12));
    assertThat(Correlation.spearman(new double[] {1, 2, 3, 4, 5}, new double[] {2, 1, 4, 3, 5}))
        .isCloseTo(0.8, within(1e-12));
    // monotone but not linear: rho = 1, r = 9 / sqrt(2 * 438 / 9)
    assertThat(Correlation.spearman(new double[] {1, 2, 3}, new double[] {1, 2, 10}))
        .isCloseTo(1.0, within(1e-12));
    assertThat(Correlation.pearson(new double[] {1, 2, 3}, new double[] {1, 2, 10}))
        .isCloseTo(9 / Math.sqrt(2 * 438 / 9.0), within(1e-12));
  }

  @Test
  void tiedValuesShareTheirAverageRank() {
    assertThat(Correlation.averageRanks(new double[] {10, 20, 20, 30}))
        .containsExactly(1, 2.5, 2.5, 4);
    assertThat(Correlation.averageRanks(new double[] {5, 5, 5})).containsExactly(2, 2, 2);
    // ranks x = 1, 2.5, 2.5, 4 against 1..4: sxy = 4.5, sxx = 4.5, syy = 5
    assertThat(Correlation.spearman(new double[] {1, 2, 2, 3}, new double[] {1, 2, 3, 4}))
        .isCloseTo(4.5 / Math.sqrt(4.5 * 5), within(1e-12));
  }

  @Test
  void aConstantSideHasNoCorrelation() {
    assertThat(Correlation.pearson(new double[] {1, 1, 1}, new double[] {1, 2, 3})).isNaN();
  }

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
              new RowKey("dense", "m" + i, "base", "retrieval"), ours[i]));
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

  @Test
  void kendallsTauBCountsConcordantPairsAndCorrectsForTies() {
    // 10 pairs: 8 concordant, 1 discordant, 1 tied in y only -> (8 - 1) / sqrt(10 * 9)
    assertThat(Correlation.kendall(new double[] {1, 2, 3, 4, 5}, new double[] {5, 6, 7, 8, 7}))
        .isCloseTo(7 / Math.sqrt(90), org.assertj.core.api.Assertions.within(1e-15));
    assertThat(Correlation.kendall(new double[] {1, 2, 3}, new double[] {3, 2, 1})).isEqualTo(-1.0);
    assertThat(Correlation.kendall(new double[] {1, 2, 3}, new double[] {4, 4, 4})).isNaN();
  }
}
