package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.rank.OrdinalHit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
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

  @Test
  void hnswOverInt8AndBinaryVectorsScoresAsTheQuantizedScanAndReportsRecallAgainstIt() {
    Random random = new Random(17);
    int n = 3000;
    int dim = 64;
    int k = 10;
    float[] docs = new float[n * dim];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = (float) random.nextGaussian();
    }
    DenseSearcher searcher = new DenseSearcher(docs, dim, IntStream.range(0, n).toArray());
    List<float[]> queries = new java.util.ArrayList<>();
    for (int q = 0; q < 20; q++) {
      // Near a document, as real queries are near their relevant documents.
      float[] query = new float[dim];
      int near = random.nextInt(n);
      for (int i = 0; i < dim; i++) {
        query[i] = docs[near * dim + i] + 0.5f * (float) random.nextGaussian();
      }
      queries.add(query);
    }
    for (Quantization quantization : List.of(Quantization.INT8, Quantization.BINARY)) {
      for (boolean rescore : List.of(false, true)) {
        String variant = quantization + (rescore ? " rescore" : "");
        var options =
            new DenseSearchOptions(VectorSimilarity.COSINE, 0, quantization, rescore, 100, true);
        var approximate = searcher.searchBatch(queries, options, k, Cancellation.NEVER);
        var exact = searcher.searchBatch(queries, options.exactScan(), k, Cancellation.NEVER);
        double recallSum = 0;
        for (int q = 0; q < queries.size(); q++) {
          DenseSearchResult result = approximate.get(q);
          // Scored as the exact scan of the variant scores: every hit carries the score the
          // variant gives that document when it is the only candidate.
          var scoredAlone =
              searcher.rescore(
                  queries.get(q),
                  result.hits().stream().mapToInt(OrdinalHit::ordinal).toArray(),
                  options,
                  Cancellation.NEVER);
          assertThat(result.hits()).as(variant).containsExactlyElementsOf(scoredAlone.hits());
          var truth = exact.get(q).hits().stream().map(OrdinalHit::ordinal).toList();
          long overlap =
              result.hits().stream().filter(hit -> truth.contains(hit.ordinal())).count();
          assertThat(result.approximateRecall()).as(variant).isEqualTo(overlap / (double) k);
          recallSum += result.approximateRecall();
        }
        // The graph over the quantized vectors finds most of the quantized scan's top-k.
        assertThat(recallSum / queries.size()).as(variant).isGreaterThanOrEqualTo(0.8);
        assertThat(approximate.get(0).bytesPerVector())
            .isEqualTo(DenseSearchOptions.bytesPerVector(quantization, dim));
        assertThat(approximate.get(0).storedBytesPerVector())
            .isEqualTo(
                DenseSearchOptions.bytesPerVector(quantization, dim) + (rescore ? 4L * dim : 0));
      }
    }
  }

  /**
   * Unit vectors in 200 clusters whose dimensions spread very differently (the noise of dimension d
   * scales as 1 / sqrt(1 + d / 4), as in {@code bench index-scaling}): the int8 scan's codes
   * stretch every dimension to the full byte range, and a graph linked by their inner product found
   * 0.87 of the true top 10 here at a beam of 20. The graph over one-scale int8 keeps the float
   * geometry.
   */
  @Test
  void theInt8GraphFollowsTheFloatGeometryWhenDimensionsSpreadVeryDifferently() {
    int n = 20_000;
    int dims = 64;
    SplittableRandom random = new SplittableRandom(3);
    float[][] centroids = new float[200][dims];
    for (float[] centroid : centroids) {
      for (int d = 0; d < dims; d++) {
        centroid[d] = (float) (random.nextGaussian() / Math.sqrt(dims));
      }
    }
    double total = 0;
    for (int d = 0; d < dims; d++) {
      total += 1 / (1 + d / 4.0);
    }
    float[] docs = new float[n * dims];
    List<float[]> queries = new ArrayList<>();
    for (int i = 0; i < n + 50; i++) {
      float[] centroid = centroids[random.nextInt(centroids.length)];
      float[] v = new float[dims];
      double norm = 0;
      for (int d = 0; d < dims; d++) {
        v[d] = centroid[d] + (float) (random.nextGaussian() * Math.sqrt(1 / (1 + d / 4.0) / total));
        norm += v[d] * v[d];
      }
      for (int d = 0; d < dims; d++) {
        v[d] /= (float) Math.sqrt(norm);
      }
      if (i < n) {
        System.arraycopy(v, 0, docs, i * dims, dims);
      } else {
        queries.add(v);
      }
    }
    DenseSearcher searcher = new DenseSearcher(docs, dims, IntStream.range(0, n).toArray());
    var int8Graph =
        new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.INT8, true, 20, true);
    double recall = 0;
    for (float[] query : queries) {
      Set<Integer> truth = new HashSet<>();
      for (OrdinalHit hit :
          searcher.search(query, VectorSimilarity.DOT, 0, 10, Cancellation.NEVER)) {
        truth.add(hit.ordinal());
      }
      recall +=
          searcher.searchApproximateOnly(query, int8Graph, 10, Cancellation.NEVER).hits().stream()
                  .filter(hit -> truth.contains(hit.ordinal()))
                  .count()
              / 10.0;
    }
    assertThat(recall / queries.size()).isGreaterThanOrEqualTo(0.95);
  }

  @Test
  void hnswOverBinaryVectorsReturnsHammingSimilaritiesNotFloatScores() {
    float[] docs = {1f, 1f, -0.01f, 0.9f, 1f, 0.01f};
    DenseSearcher searcher = new DenseSearcher(docs, 3, new int[] {0, 1});
    float[] query = {1f, 1f, -1f};
    var binary =
        searcher.search(
            query,
            new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.BINARY, false, 100, true),
            2,
            Cancellation.NEVER);
    // Hamming similarity: a agrees on 3 signs, b on 2.
    assertThat(binary.hits()).extracting(OrdinalHit::ordinal).containsExactly(0, 1);
    assertThat(binary.hits()).extracting(OrdinalHit::score).containsExactly(3f, 2f);
    var floats =
        searcher.search(
            query,
            new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.NONE, false, 100, true),
            2,
            Cancellation.NEVER);
    assertThat(floats.hits()).extracting(OrdinalHit::score).doesNotContain(3f, 2f);
    assertThat(binary.approximateRecall()).isEqualTo(1.0);
  }
}
