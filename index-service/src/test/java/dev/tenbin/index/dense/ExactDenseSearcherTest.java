package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ExactDenseSearcherTest {
  private static final int DIM = 48;

  private record Reference(int ordinal, double score) {}

  /** Brute force in double precision, ties by id order. */
  private static List<Integer> reference(float[] docs, float[] query, VectorSimilarity similarity, int dims, int[] idOrder, int k) {
    int n = docs.length / DIM;
    double qNorm = 0;
    for (int i = 0; i < dims; i++) {
      qNorm += (double) query[i] * query[i];
    }
    List<Reference> all = new ArrayList<>();
    for (int d = 0; d < n; d++) {
      double dot = 0;
      double dNorm = 0;
      for (int i = 0; i < dims; i++) {
        dot += (double) docs[d * DIM + i] * query[i];
        dNorm += (double) docs[d * DIM + i] * docs[d * DIM + i];
      }
      all.add(new Reference(d, similarity == VectorSimilarity.COSINE ? dot / Math.sqrt(dNorm * qNorm) : dot));
    }
    all.sort(Comparator.comparingDouble((Reference r) -> -r.score()).thenComparingInt(r -> idOrder[r.ordinal()]));
    return all.subList(0, k).stream().map(Reference::ordinal).toList();
  }

  @Test
  void exactSearchEqualsADoublePrecisionBruteForceIncludingTies() {
    Random random = new Random(7);
    int n = 500;
    float[] docs = new float[n * DIM];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = (float) random.nextGaussian();
    }
    // Exact duplicates of document 0 make ties that only the id order can break.
    for (int copy : new int[] {17, 250, 499}) {
      System.arraycopy(docs, 0, docs, copy * DIM, DIM);
    }
    int[] idOrder = new int[n];
    for (int i = 0; i < n; i++) {
      idOrder[i] = n - 1 - i; // ids sort in reverse ordinal order
    }
    ExactDenseSearcher searcher = new ExactDenseSearcher(docs, DIM, idOrder);
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      for (int dims : new int[] {0, 32, 16}) {
        for (int q = 0; q < 20; q++) {
          float[] query = new float[DIM];
          if (q == 0) {
            System.arraycopy(docs, 0, query, 0, DIM);
          } else {
            for (int i = 0; i < DIM; i++) {
              query[i] = (float) random.nextGaussian();
            }
          }
          List<Integer> got =
              searcher.search(query, similarity, dims, 10, Cancellation.NEVER).stream().map(DenseHit::ordinal).toList();
          assertThat(got).as("%s dims %d query %d", similarity, dims, q)
              .isEqualTo(reference(docs, query, similarity, dims == 0 ? DIM : dims, idOrder, 10));
        }
      }
    }
  }

  @Test
  void theParallelScanOverManyBlocksMatchesTheReferenceAndIsRepeatable() {
    Random random = new Random(11);
    int n = 10_000;
    float[] docs = new float[n * DIM];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = (float) random.nextGaussian();
    }
    int[] idOrder = new int[n];
    for (int i = 0; i < n; i++) {
      idOrder[i] = i;
    }
    ExactDenseSearcher searcher = new ExactDenseSearcher(docs, DIM, idOrder);
    float[] query = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      query[i] = (float) random.nextGaussian();
    }
    List<DenseHit> first = searcher.search(query, VectorSimilarity.DOT, 0, 25, Cancellation.NEVER);
    assertThat(first.stream().map(DenseHit::ordinal).toList())
        .isEqualTo(reference(docs, query, VectorSimilarity.DOT, DIM, idOrder, 25));
    for (int repeat = 0; repeat < 5; repeat++) {
      assertThat(searcher.search(query, VectorSimilarity.DOT, 0, 25, Cancellation.NEVER)).isEqualTo(first);
    }
  }

  @Test
  void tiedDuplicatesShareTheirScoreAndFollowIdOrder() {
    float[] docs = {1, 0, 1, 0, 0, 1};
    ExactDenseSearcher searcher = new ExactDenseSearcher(docs, 2, new int[] {1, 0, 2});
    List<DenseHit> hits = searcher.search(new float[] {1, 0}, VectorSimilarity.DOT, 0, 3, Cancellation.NEVER);
    assertThat(hits).extracting(DenseHit::ordinal).containsExactly(1, 0, 2);
    assertThat(hits.get(0).score()).isEqualTo(hits.get(1).score());
  }

  @Test
  void wrongQueryDimensionAndTruncationAreRejected() {
    ExactDenseSearcher searcher = new ExactDenseSearcher(new float[] {1, 0}, 2, new int[] {0});
    assertThatThrownBy(() -> searcher.search(new float[3], VectorSimilarity.DOT, 0, 1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> searcher.search(new float[2], VectorSimilarity.DOT, 5, 1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("dense.truncate_dimensions");
  }
}
