package dev.tenbin.index.multivector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.OrdinalHit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MaxSimSearcherTest {
  private static final int DIM = 12;
  @TempDir Path dir;

  /** Small integers, so every dot product and sum is exact in float. */
  private static TokenVectors random(Random random, int tokens) {
    float[] values = new float[tokens * DIM];
    for (int i = 0; i < values.length; i++) {
      values[i] = random.nextInt(7) - 3;
    }
    return new TokenVectors(tokens, values);
  }

  private record Ref(int ordinal, double score) {}

  @Test
  void maxSimEqualsTheSumOfBestTokenDotProducts() {
    Random random = new Random(9);
    List<TokenVectors> docs = new ArrayList<>();
    for (int d = 0; d < 200; d++) {
      docs.add(random(random, 1 + random.nextInt(30)));
    }
    int[] idOrder = new int[docs.size()];
    for (int i = 0; i < idOrder.length; i++) {
      idOrder[i] = i;
    }
    TokenVectors query = random(random, 6);
    List<Ref> reference = new ArrayList<>();
    for (int d = 0; d < docs.size(); d++) {
      double sum = 0;
      for (int t = 0; t < query.tokens(); t++) {
        double best = Double.NEGATIVE_INFINITY;
        for (int u = 0; u < docs.get(d).tokens(); u++) {
          double dot = 0;
          for (int k = 0; k < DIM; k++) {
            dot += query.values()[t * DIM + k] * docs.get(d).values()[u * DIM + k];
          }
          best = Math.max(best, dot);
        }
        sum += best;
      }
      reference.add(new Ref(d, sum));
    }
    reference.sort(
        Comparator.comparingDouble((Ref r) -> -r.score()).thenComparingInt(Ref::ordinal));
    var hits = new MaxSimSearcher(docs, DIM, idOrder).search(query, 15, Cancellation.NEVER);
    assertThat(hits.stream().map(OrdinalHit::ordinal).toList())
        .isEqualTo(reference.subList(0, 15).stream().map(Ref::ordinal).toList());
    assertThat(hits.stream().map(h -> (double) h.score()).toList())
        .isEqualTo(reference.subList(0, 15).stream().map(Ref::score).toList());
  }

  @Test
  void storedMultiVectorsSurviveAReopenWithoutPadding() {
    MultiVectorStore store = MultiVectorStore.open(dir, DIM);
    Random random = new Random(1);
    store.append(List.of(random(random, 3), random(random, 1)));
    store.commit();
    MultiVectorStore reopened = MultiVectorStore.open(dir, DIM);
    assertThat(reopened.snapshot()).extracting(TokenVectors::tokens).containsExactly(3, 1);
  }
}
