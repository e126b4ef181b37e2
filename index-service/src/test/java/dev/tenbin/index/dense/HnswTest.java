package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HnswTest {
  @Test
  void hnswCandidatesAreRescoredExactlyAndTheirRecallIsReported() {
    Random random = new Random(5);
    int n = 2000;
    int dim = 32;
    float[] docs = new float[n * dim];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = (float) random.nextGaussian();
    }
    ExactDenseSearcher searcher = new ExactDenseSearcher(docs, dim, IntStream.range(0, n).toArray());
    float[] query = new float[dim];
    for (int i = 0; i < dim; i++) {
      query[i] = (float) random.nextGaussian();
    }
    var approximate =
        searcher.search(query, new DenseSearchOptions(VectorSimilarity.COSINE, 0, Quantization.NONE, false, 100, true), 10, Cancellation.NEVER);
    var exact = searcher.search(query, VectorSimilarity.COSINE, 0, 10, Cancellation.NEVER);
    assertThat(approximate.approximateRecall()).isGreaterThanOrEqualTo(0.9);
    // Scores of the documents both found are the exact float scores.
    for (DenseHit hit : approximate.hits()) {
      exact.stream().filter(e -> e.ordinal() == hit.ordinal()).forEach(e -> assertThat(hit.score()).isEqualTo(e.score()));
    }
    long overlap = approximate.hits().stream().filter(h -> exact.stream().anyMatch(e -> e.ordinal() == h.ordinal())).count();
    assertThat(approximate.approximateRecall()).isEqualTo(overlap / 10.0);
  }
}
