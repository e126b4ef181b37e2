package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.OrdinalHit;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HnswTest {
  @Test
  void hnswCandidatesAreRescoredExactlyAndTheirRecallAgainstExactSearchIsReported() {
    Random random = new Random(5);
    int n = 2000;
    int dim = 32;
    float[] docs = new float[n * dim];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = (float) random.nextGaussian();
    }
    DenseSearcher searcher = new DenseSearcher(docs, dim, IntStream.range(0, n).toArray());
    float[] query = new float[dim];
    for (int i = 0; i < dim; i++) {
      query[i] = (float) random.nextGaussian();
    }
    var approximate =
        searcher.search(
            query,
            new DenseSearchOptions(VectorSimilarity.COSINE, 0, Quantization.NONE, false, 100, true),
            10,
            Cancellation.NEVER);
    List<OrdinalHit> exact =
        searcher.search(query, VectorSimilarity.COSINE, 0, 10, Cancellation.NEVER);
    List<OrdinalHit> all =
        searcher.search(query, VectorSimilarity.COSINE, 0, n, Cancellation.NEVER);
    assertThat(approximate.approximateRecall()).isGreaterThanOrEqualTo(0.9);
    // Every returned score is the exact float score of that document.
    assertThat(all).containsAll(approximate.hits());
    long overlap = approximate.hits().stream().filter(exact::contains).count();
    assertThat(approximate.approximateRecall()).isEqualTo(overlap / 10.0);
  }

  @Test
  void exactSearchesReportNoRecall() {
    DenseSearcher searcher = new DenseSearcher(new float[] {1, 0}, 2, new int[] {0});
    assertThat(
            searcher
                .search(
                    new float[] {1, 0},
                    DenseSearchOptions.exact(VectorSimilarity.DOT),
                    1,
                    Cancellation.NEVER)
                .approximateRecall())
        .isNaN();
  }
}
