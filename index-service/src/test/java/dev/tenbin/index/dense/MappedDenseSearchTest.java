package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.quantize.Int8Calibration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A searcher over the store's memory mappings answers exactly as one over a heap copy. */
class MappedDenseSearchTest {
  private static final int DIM = 40;
  private static final int N = 5_000;

  @TempDir Path dir;

  @Test
  void everyVariantOverTheMappedStoreEqualsTheSameVariantOverAHeapCopy() {
    Random random = new Random(11);
    // 700 rows per mapping: scan runs and blocks straddle mapping boundaries.
    try (DenseVectorStore store = DenseVectorStore.open(dir, DIM, 700L * DIM * Float.BYTES)) {
      for (int batch = 0; batch < 5; batch++) {
        List<float[]> rows = new ArrayList<>();
        for (int v = 0; v < N / 5; v++) {
          float[] row = new float[DIM];
          for (int d = 0; d < DIM; d++) {
            row[d] = (float) random.nextGaussian();
          }
          rows.add(row);
        }
        store.append(rows);
        store.commit();
      }
      int[] idOrder = IntStream.range(0, N).map(i -> (i * 7919) % N).toArray();
      DenseSearcher mapped = new DenseSearcher(store.mapped(), idOrder);
      DenseSearcher heap = new DenseSearcher(store.snapshot(), DIM, idOrder);
      List<float[]> queries = new ArrayList<>();
      for (int q = 0; q < 6; q++) {
        float[] query = new float[DIM];
        for (int d = 0; d < DIM; d++) {
          query[d] = (float) random.nextGaussian();
        }
        queries.add(query);
      }
      for (VectorSimilarity similarity : VectorSimilarity.values()) {
        for (int truncate : new int[] {0, 24}) {
          for (Quantization quantization : Quantization.values()) {
            for (boolean rescore : new boolean[] {false, true}) {
              for (boolean approximate : new boolean[] {false, true}) {
                if (approximate && (truncate != 0 || similarity == VectorSimilarity.COSINE)) {
                  continue; // graphs are slow to build; one similarity and truncation suffices
                }
                DenseSearchOptions options =
                    new DenseSearchOptions(
                        similarity, truncate, quantization, rescore, 30, approximate);
                String variant = options.toString();
                assertThat(mapped.searchBatch(queries, options, 20, Cancellation.NEVER))
                    .as(variant)
                    .isEqualTo(heap.searchBatch(queries, options, 20, Cancellation.NEVER));
                assertThat(mapped.search(queries.get(0), options, 20, Cancellation.NEVER))
                    .as(variant)
                    .isEqualTo(heap.search(queries.get(0), options, 20, Cancellation.NEVER));
              }
            }
          }
          Int8Calibration calibration = mapped.int8Calibration(similarity, truncate);
          assertThat(calibration).isEqualTo(heap.int8Calibration(similarity, truncate));
        }
      }
      int[] candidates = {4999, 0, 1234, 700, 699, 1234};
      DenseSearchOptions exact = DenseSearchOptions.exact(VectorSimilarity.DOT);
      assertThat(mapped.rescore(queries.get(1), candidates, exact, Cancellation.NEVER))
          .isEqualTo(heap.rescore(queries.get(1), candidates, exact, Cancellation.NEVER));
    }
  }

  @Test
  void anApproximateSearchWithoutItsRecallReturnsTheSameHitsAndNoRecall() {
    Random random = new Random(5);
    int n = 400;
    float[] docs = new float[n * DIM];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = (float) random.nextGaussian();
    }
    DenseSearcher searcher = new DenseSearcher(docs, DIM, IntStream.range(0, n).toArray());
    float[] query = new float[DIM];
    for (int d = 0; d < DIM; d++) {
      query[d] = (float) random.nextGaussian();
    }
    for (Quantization quantization : Quantization.values()) {
      DenseSearchOptions options =
          new DenseSearchOptions(VectorSimilarity.DOT, 0, quantization, true, 20, true);
      DenseSearchResult withRecall = searcher.search(query, options, 10, Cancellation.NEVER);
      DenseSearchResult alone =
          searcher.searchApproximateOnly(query, options, 10, Cancellation.NEVER);
      assertThat(alone.hits()).as(quantization.name()).isEqualTo(withRecall.hits());
      assertThat(withRecall.approximateRecall()).isBetween(0.0, 1.0);
      assertThat(alone.approximateRecall()).isNaN();
    }
    assertThatThrownBy(
            () ->
                searcher.searchApproximateOnly(
                    query, DenseSearchOptions.exact(VectorSimilarity.DOT), 10, Cancellation.NEVER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("approximate");
  }
}
