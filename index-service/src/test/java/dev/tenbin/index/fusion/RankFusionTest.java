package dev.tenbin.index.fusion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.InvalidInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RankFusionTest {
  private static RankedDoc d(String id, float score) {
    return new RankedDoc(id, score);
  }

  @Test
  void reciprocalRankFusionSumsOneOverKPlusRank() {
    List<RankedDoc> bm25 = List.of(d("a", 9), d("b", 8), d("c", 7));
    List<RankedDoc> dense = List.of(d("c", 0.9f), d("a", 0.8f), d("x", 0.1f));
    List<RankedDoc> fused = RankFusion.reciprocalRank(List.of(bm25, dense), 100, 0);
    // a: 1/101 + 1/102; c: 1/103 + 1/101; b: 1/102; x: 1/103.
    assertThat(fused).extracting(RankedDoc::docId).containsExactly("a", "c", "b", "x");
    assertThat(fused.get(0).score()).isCloseTo((float) (1.0 / 101 + 1.0 / 102), within(1e-7f));
    assertThat(RankFusion.reciprocalRank(List.of(bm25, dense), 100, 2)).hasSize(2);
  }

  @Test
  void equalFusedScoresAreOrderedByDocId() {
    List<RankedDoc> fused = RankFusion.reciprocalRank(List.of(List.of(d("z", 1)), List.of(d("b", 1))), 60, 0);
    assertThat(fused).extracting(RankedDoc::docId).containsExactly("b", "z");
  }

  @Test
  void linearInterpolationMinMaxNormalisesEachListAndWeighsIt() {
    List<RankedDoc> first = List.of(d("a", 10), d("b", 5), d("c", 0));
    List<RankedDoc> second = List.of(d("c", 3), d("a", 1));
    List<RankedDoc> fused = RankFusion.linear(List.of(first, second), List.of(0.5f, 0.5f), 0);
    // a: .5*1 + .5*0 = .5; b: .5*.5 = .25; c: .5*0 + .5*1 = .5 -> a and c tie, id order.
    assertThat(fused).extracting(RankedDoc::docId).containsExactly("a", "c", "b");
    assertThat(fused.get(2).score()).isCloseTo(0.25f, within(1e-7f));
  }

  @Test
  void weightsMustMatchRankings() {
    assertThatThrownBy(() -> RankFusion.linear(List.of(List.of()), List.of(), 0))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("weights");
  }
}
