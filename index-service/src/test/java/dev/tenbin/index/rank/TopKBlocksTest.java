package dev.tenbin.index.rank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Selection in parallel blocks gives exactly the hits, and the order, of the one-pass selection.
 */
class TopKBlocksTest {
  /** A random id order: ordinal → rank of its id. */
  private static int[] idOrder(int size, Random random) {
    List<Integer> ranks = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      ranks.add(i);
    }
    Collections.shuffle(ranks, random);
    return ranks.stream().mapToInt(Integer::intValue).toArray();
  }

  @Test
  void blocksGiveTheSameHitsInTheSameOrderAsOnePassEvenWithManyTies() {
    Random random = new Random(16);
    for (int trial = 0; trial < 200; trial++) {
      int size = 1 + random.nextInt(5_000);
      float[] scores = new float[size];
      int distinct = 1 + random.nextInt(20); // few distinct values: ties everywhere (binary scans)
      for (int d = 0; d < size; d++) {
        scores[d] = random.nextInt(4) == 0 ? -0.0f : random.nextInt(distinct) - distinct / 2f;
      }
      TopK topK = new TopK(idOrder(size, random));
      int k = 1 + random.nextInt(150);
      int block = 1 + random.nextInt(700);

      List<OrdinalHit> blocks = topK.selectInBlocks(scores, k, block);

      assertThat(blocks)
          .as("size %d, k %d, block %d", size, k, block)
          .containsExactlyElementsOf(topK.select(scores, k));
    }
  }

  @Test
  void oneBlockOrMoreThanTheScoresIsThePlainSelection() {
    float[] scores = {3f, 1f, 3f, 2f};
    TopK topK = new TopK(new int[] {3, 2, 1, 0});

    assertThat(topK.selectInBlocks(scores, 2, 10))
        .containsExactlyElementsOf(topK.select(scores, 2));
    assertThat(topK.selectInBlocks(scores, 9, 1)).containsExactlyElementsOf(topK.select(scores, 9));
    assertThat(topK.selectInBlocks(scores, 2, 1))
        .extracting(OrdinalHit::ordinal)
        .containsExactly(2, 0); // score 3 twice: ordinal 2 has the smaller id
    assertThatThrownBy(() -> topK.selectInBlocks(scores, 2, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
