package dev.tenbin.index.sparse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.rank.OrdinalHit;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImpactSearcherTest {
  @TempDir Path dir;

  /** Weights in eighths, so float sums are exact and the reference can be compared bit for bit. */
  private static SparseDoc random(Random random, int vocabulary, int active) {
    TreeMap<Integer, Float> entries = new TreeMap<>();
    while (entries.size() < active) {
      entries.put(random.nextInt(vocabulary), (1 + random.nextInt(40)) / 8f);
    }
    int[] ids = entries.keySet().stream().mapToInt(Integer::intValue).toArray();
    float[] weights = new float[ids.length];
    for (int i = 0; i < ids.length; i++) {
      weights[i] = entries.get(ids[i]);
    }
    return new SparseDoc(ids, weights);
  }

  private record Ref(int ordinal, double score) {}

  @Test
  void everyPruningSettingOfTheGridEqualsABruteForceReference() {
    Random random = new Random(3);
    List<SparseDoc> docs = new ArrayList<>();
    for (int d = 0; d < 300; d++) {
      docs.add(random(random, 500, 1 + random.nextInt(80)));
    }
    int[] idOrder = new int[docs.size()];
    for (int i = 0; i < idOrder.length; i++) {
      idOrder[i] = i;
    }
    ImpactSearcher searcher = new ImpactSearcher(docs, idOrder);
    SparseDoc query = random(random, 500, 40);
    for (int q : new int[] {0, 8, 16, 24, 32}) {
      for (int dMax : new int[] {0, 64, 128, 256, 512}) {
        SparseDoc prunedQuery = query.pruned(q);
        List<Ref> reference = new ArrayList<>();
        for (int d = 0; d < docs.size(); d++) {
          SparseDoc doc = docs.get(d).pruned(dMax);
          double score = 0;
          boolean touched = false;
          for (int i = 0; i < prunedQuery.ids().length; i++) {
            int at = java.util.Arrays.binarySearch(doc.ids(), prunedQuery.ids()[i]);
            if (at >= 0) {
              score += prunedQuery.weights()[i] * doc.weights()[at];
              touched = true;
            }
          }
          if (touched) {
            reference.add(new Ref(d, score));
          }
        }
        reference.sort(
            Comparator.comparingDouble((Ref r) -> -r.score()).thenComparingInt(Ref::ordinal));
        var hits = searcher.search(query, q, dMax, 20, Cancellation.NEVER);
        assertThat(hits.stream().map(OrdinalHit::ordinal).toList())
            .as("q=%d d=%d", q, dMax)
            .isEqualTo(
                reference.subList(0, Math.min(20, reference.size())).stream()
                    .map(Ref::ordinal)
                    .toList());
      }
    }
  }

  @Test
  void pruningKeepsTheLargestMagnitudes() {
    SparseDoc doc = new SparseDoc(new int[] {1, 2, 3, 4}, new float[] {0.5f, -3f, 1f, 2f});
    SparseDoc pruned = doc.pruned(2);
    assertThat(pruned.ids()).containsExactly(2, 4);
    assertThat(pruned.weights()).containsExactly(-3f, 2f);
  }

  @Test
  void storedVectorsAreValidatedAgainstTheVocabularyAndSurviveAReopen() {
    SparseVectorStore store = SparseVectorStore.open(dir, 10);
    assertThatThrownBy(
            () ->
                store.validate(
                    List.of(new SparseDoc(new int[] {3, 12}, new float[] {1, 1})),
                    "documents[{i}].sparse"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("outside the vocabulary")
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("documents[0].sparse");
    assertThatThrownBy(
            () -> store.validate(List.of(new SparseDoc(new int[] {3, 2}, new float[] {1, 1})), "d"))
        .hasMessageContaining("ascending");
    store.append(List.of(new SparseDoc(new int[] {1, 5}, new float[] {0.5f, 2f})));
    store.commit();
    store.append(List.of(new SparseDoc(new int[] {2}, new float[] {1f})));
    SparseVectorStore reopened = SparseVectorStore.open(dir, 10);
    assertThat(reopened.snapshot()).hasSize(1);
    assertThat(reopened.snapshot().getFirst().weights()).containsExactly(0.5f, 2f);
  }
}
