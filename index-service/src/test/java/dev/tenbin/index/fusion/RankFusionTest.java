package dev.tenbin.index.fusion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.rank.Hit;
import java.util.List;
import org.junit.jupiter.api.Test;

class RankFusionTest {
  private static Hit d(String id, float score) {
    return new Hit(id, score);
  }

  private static final List<Hit> BM25 = List.of(d("a", 9), d("b", 8), d("c", 7));
  private static final List<Hit> DENSE = List.of(d("c", 0.9f), d("a", 0.8f), d("x", 0.1f));

  @Test
  void reciprocalRankFusionSumsOneOverKPlusRankAndMissingDocumentsContributeNothing() {
    List<Hit> fused = new ReciprocalRankFusion(100).fuse(List.of(BM25, DENSE));
    // a: 1/101 + 1/102; c: 1/103 + 1/101; b: 1/102; x: 1/103.
    assertThat(fused)
        .containsExactly(
            d("a", (float) (1.0 / 101 + 1.0 / 102)),
            d("c", (float) (1.0 / 103 + 1.0 / 101)),
            d("b", (float) (1.0 / 102)),
            d("x", (float) (1.0 / 103)));
  }

  @Test
  void theRrfConstantChangesScoresAsTheFormulaSays() {
    List<Hit> fused =
        new ReciprocalRankFusion(ReciprocalRankFusion.HYBRID_SEARCH_K).fuse(List.of(BM25, DENSE));
    assertThat(fused.get(0)).isEqualTo(d("a", (float) (1.0 / 61 + 1.0 / 62)));
    assertThat(new ReciprocalRankFusion(0).fuse(List.of(BM25)).get(1)).isEqualTo(d("b", 0.5f));
  }

  @Test
  void weightedRrfMultipliesEachRankingsTermByItsWeightAndNoWeightsMeansOneEach() {
    List<Hit> fused =
        new ReciprocalRankFusion(60, List.of(0.75f, 0.25f)).fuse(List.of(BM25, DENSE));
    // a: .75/61 + .25/62; c: .75/63 + .25/61; b: .75/62; x (dense only, rank 3): .25/63.
    assertThat(fused)
        .containsExactly(
            d("a", (float) (0.75 / 61 + 0.25 / 62)),
            d("c", (float) (0.75 / 63 + 0.25 / 61)),
            d("b", (float) (0.75 / 62)),
            d("x", (float) (0.25 / 63)));
    // All weight on BM25: its order, and the dense-only document still listed, at 0.
    assertThat(new ReciprocalRankFusion(60, List.of(1f, 0f)).fuse(List.of(BM25, DENSE)))
        .containsExactly(
            d("a", (float) (1.0 / 61)),
            d("b", (float) (1.0 / 62)),
            d("c", (float) (1.0 / 63)),
            d("x", 0f));
    assertThat(new ReciprocalRankFusion(60, List.of()).fuse(List.of(BM25, DENSE)))
        .isEqualTo(new ReciprocalRankFusion(60).fuse(List.of(BM25, DENSE)));
    assertThat(RankFusion.reciprocalRank(List.of(BM25, DENSE), 60, List.of(0.75f, 0.25f), 2))
        .isEqualTo(fused.subList(0, 2));
  }

  @Test
  void weightedRrfRefusesAWrongWeightCountOrANegativeWeight() {
    assertThatThrownBy(() -> new ReciprocalRankFusion(60, List.of(1f)).fuse(List.of(BM25, DENSE)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("one weight per ranking");
    assertThatThrownBy(() -> new ReciprocalRankFusion(60, List.of(1f, -0.5f)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("not negative");
  }

  @Test
  void rrfRanksByPositionNotByInputScore() {
    List<Hit> tiedInput = List.of(d("q", 1f), d("p", 1f));
    assertThat(new ReciprocalRankFusion(60).fuse(List.of(tiedInput)))
        .extracting(Hit::docId)
        .containsExactly("q", "p");
  }

  @Test
  void equalFusedScoresAreOrderedByDocId() {
    List<Hit> fused =
        new ReciprocalRankFusion(60)
            .fuse(List.of(List.of(d("z", 1)), List.of(d("b", 1)), List.of(d("m", 5))));
    assertThat(fused).extracting(Hit::docId).containsExactly("b", "m", "z");
    assertThat(fused).extracting(Hit::score).containsOnly((float) (1.0 / 61));
  }

  @Test
  void aDocumentListedTwiceInOneRankingCountsOnceAtItsBestPlace() {
    List<Hit> repeated = List.of(d("a", 3), d("b", 2), d("a", 1));
    assertThat(new ReciprocalRankFusion(0).fuse(List.of(repeated)))
        .containsExactly(d("a", 1f), d("b", 0.5f));
    assertThat(new MinMaxInterpolation(List.of(1f)).fuse(List.of(repeated)))
        .containsExactly(d("a", 1f), d("b", 0f));
  }

  @Test
  void minMaxInterpolationNormalisesEachListWeighsItAndCountsMissingDocumentsAsZero() {
    List<Hit> first = List.of(d("a", 10), d("b", 5), d("c", 0));
    List<Hit> second = List.of(d("c", 3), d("a", 1), d("d", 2));
    List<Hit> fused = new MinMaxInterpolation(List.of(0.7f, 0.3f)).fuse(List.of(first, second));
    // first: a 1, b .5, c 0; second: c 1, a 0, d .5.
    // a .7; b .35; c .3; d .15.
    assertThat(fused)
        .containsExactly(
            d("a", (float) (0.7f * 1.0)),
            d("b", (float) (0.7f * 0.5)),
            d("c", (float) (0.3f * 1.0)),
            d("d", (float) (0.3f * 0.5)));
  }

  @Test
  void aListWithOneScoreCountsEachOfItsDocumentsAsOne() {
    List<Hit> constant = List.of(d("b", 4), d("a", 4));
    List<Hit> other = List.of(d("c", 2), d("a", 1));
    List<Hit> fused = new MinMaxInterpolation(List.of(0.5f, 0.5f)).fuse(List.of(constant, other));
    // a: .5·1 + .5·0 = .5; b: .5·1 = .5; c: .5·1 = .5 -> a three-way tie, ordered by id.
    assertThat(fused).containsExactly(d("a", 0.5f), d("b", 0.5f), d("c", 0.5f));
    assertThat(MinMaxInterpolation.equalWeights(2).fuse(List.of(List.of(d("only", -3)), List.of())))
        .containsExactly(d("only", 0.5f));
  }

  @Test
  void theStaticHelpersCutToTopK() {
    assertThat(RankFusion.reciprocalRank(List.of(BM25, DENSE), 100, 2))
        .extracting(Hit::docId)
        .containsExactly("a", "c");
    assertThat(RankFusion.reciprocalRank(List.of(BM25, DENSE), 100, 0)).hasSize(4);
    assertThat(RankFusion.linear(List.of(BM25, DENSE), List.of(0.5f, 0.5f), 3)).hasSize(3);
  }

  @Test
  void invalidParametersAreRejectedNamingTheField() {
    assertThatThrownBy(() -> new MinMaxInterpolation(List.of()).fuse(List.of(List.of())))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("weights");
    assertThatThrownBy(() -> new MinMaxInterpolation(List.of(1f, Float.NaN)))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("weights[1]");
    assertThatThrownBy(
            () ->
                new MinMaxInterpolation(List.of(1f))
                    .fuse(List.of(List.of(d("a", Float.POSITIVE_INFINITY)))))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("rankings[0]");
    assertThatThrownBy(() -> new ReciprocalRankFusion(-1))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("rrf_k");
  }
}
