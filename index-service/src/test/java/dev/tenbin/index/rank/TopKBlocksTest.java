package dev.tenbin.index.rank;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Selection spread over bounded heaps ({@link TopK.Best}: blocks of scores offered to several
 * heaps, which are then merged) gives exactly the hits, and the order, of the one-pass selection.
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

      List<OrdinalHit> blocks = inBlocks(topK, scores, k, block);

      assertThat(blocks)
          .as("size %d, k %d, block %d", size, k, block)
          .containsExactlyElementsOf(topK.select(scores, k));
    }
  }

  @Test
  void oneBlockOrMoreThanTheScoresIsThePlainSelection() {
    float[] scores = {3f, 1f, 3f, 2f};
    TopK topK = new TopK(new int[] {3, 2, 1, 0});

    assertThat(inBlocks(topK, scores, 2, 10)).containsExactlyElementsOf(topK.select(scores, 2));
    assertThat(inBlocks(topK, scores, 9, 1)).containsExactlyElementsOf(topK.select(scores, 9));
    assertThat(inBlocks(topK, scores, 2, 1))
        .extracting(OrdinalHit::ordinal)
        .containsExactly(2, 0); // score 3 twice: ordinal 2 has the smaller id
    TopK.Best one = topK.best(1);
    one.offerBlock(new float[] {3f, 3f}, 2);
    assertThat(one.hits()).containsExactly(new OrdinalHit(3, 3f)); // a tie: 3 has the smaller id
    assertThat(topK.best(0).merge(one).hits()).isEmpty();
  }

  /**
   * Each block of {@code scores} copied into a buffer of its own and offered to one of three heaps
   * in turn (as parallel tasks would), then the heaps merged.
   */
  private static List<OrdinalHit> inBlocks(TopK topK, float[] scores, int k, int block) {
    List<TopK.Best> heaps = List.of(topK.best(k), topK.best(k), topK.best(k));
    for (int start = 0, b = 0; start < scores.length; start += block, b++) {
      float[] buffer = Arrays.copyOfRange(scores, start, Math.min(scores.length, start + block));
      heaps.get(b % 3).offerBlock(buffer, start);
    }
    return heaps.get(2).merge(heaps.get(0)).merge(heaps.get(1)).hits();
  }
}
