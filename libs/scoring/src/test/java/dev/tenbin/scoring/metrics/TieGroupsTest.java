package dev.tenbin.scoring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TieGroupsTest {
  private static List<int[]> ranges(TieGroups groups) {
    return IntStream.range(0, groups.count())
        .mapToObj(g -> new int[] {groups.start(g), groups.end(g)})
        .toList();
  }

  @Test
  void adjacentEqualScoresFormOneGroup() {
    TieGroups groups =
        TieGroups.of(
            List.of(
                new ScoredDoc("a", 3f),
                new ScoredDoc("b", 2f),
                new ScoredDoc("c", 2f),
                new ScoredDoc("d", 2f),
                new ScoredDoc("e", 1f)));
    assertThat(ranges(groups))
        .containsExactly(new int[] {0, 1}, new int[] {1, 4}, new int[] {4, 5});
    assertThat(groups.hasTies()).isTrue();
  }

  @Test
  void floatsOneUlpApartDoNotTie() {
    float score = 2.5946288f;
    TieGroups groups =
        TieGroups.of(List.of(new ScoredDoc("a", score), new ScoredDoc("b", Math.nextDown(score))));
    assertThat(groups.hasTies()).isFalse();
    assertThat(groups.count()).isEqualTo(2);
  }

  @Test
  void positiveAndNegativeZeroTie() {
    assertThat(TieGroups.of(List.of(new ScoredDoc("a", 0.0), new ScoredDoc("b", -0.0))).count())
        .isEqualTo(1);
  }

  @Test
  void anEmptyRankingHasNoGroups() {
    TieGroups groups = TieGroups.of(List.of());
    assertThat(groups.count()).isZero();
    assertThat(groups.hasTies()).isFalse();
  }

  @Test
  void explicitStartsMustRiseFromZero() {
    assertThatThrownBy(() -> TieGroups.fromStarts(new int[] {1, 2}, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TieGroups.fromStarts(new int[] {0, 2, 2}, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(TieGroups.fromStarts(new int[] {0, 2}, 3).end(0)).isEqualTo(2);
  }
}
