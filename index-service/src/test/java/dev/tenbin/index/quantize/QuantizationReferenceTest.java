package dev.tenbin.index.quantize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DenseHit;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.ExactDenseSearcher;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** int8 and binary codes and scores against a direct implementation of the formulas. */
class QuantizationReferenceTest {
  private static final int N = 300;
  private static final int DIM = 24;

  private static float[] random(long seed, int n) {
    Random random = new Random(seed);
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) random.nextGaussian();
    }
    return v;
  }

  @Test
  void int8CodesFollowTheAffineFormulaAndClipQueriesToTheCorpusRange() {
    float[] docs = random(1, N * DIM);
    for (int i = 0; i < N; i++) {
      docs[i * DIM + 5] = 0.25f; // a constant dimension
    }
    Int8Quantizer quantizer = Int8Quantizer.calibrate(docs, DIM);
    for (int d = 0; d < DIM; d++) {
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (int i = 0; i < N; i++) {
        min = Math.min(min, docs[i * DIM + d]);
        max = Math.max(max, docs[i * DIM + d]);
      }
      float step = (float) ((float) max - (float) min) / 255f;
      for (int i = 0; i < N; i++) {
        float x = docs[i * DIM + d];
        int expected = step > 0 ? (int) Math.max(-128, Math.min(127, Math.floor((x - (float) min) / step) - 128)) : -128;
        assertThat((int) quantizer.code(x, d)).isEqualTo(expected);
      }
    }
    float[] query = random(2, DIM);
    query[0] = 100f;
    query[1] = -100f;
    var codes = quantizer.encodeQuery(query);
    assertThat(codes.codes()[0]).isEqualTo((byte) 127);
    assertThat(codes.codes()[1]).isEqualTo((byte) -128);
    assertThat(codes.clipped()).isGreaterThanOrEqualTo(2);
  }

  private record Ref(int ordinal, double score) {}

  @Test
  void int8AndBinarySearchesRankByTheReferenceScores() {
    float[] docs = random(3, N * DIM);
    int[] idOrder = new int[N];
    for (int i = 0; i < N; i++) {
      idOrder[i] = i;
    }
    ExactDenseSearcher searcher = new ExactDenseSearcher(docs, DIM, idOrder);
    float[] query = random(4, DIM);
    Int8Quantizer quantizer = Int8Quantizer.calibrate(docs, DIM);
    byte[] codes = quantizer.encode(docs);
    byte[] queryCodes = quantizer.encodeQuery(query).codes();
    List<Ref> int8 = new ArrayList<>();
    List<Ref> binary = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      long dot = 0;
      int agree = 0;
      for (int d = 0; d < DIM; d++) {
        dot += queryCodes[d] * codes[i * DIM + d];
        agree += (query[d] > 0) == (docs[i * DIM + d] > 0) ? 1 : 0;
      }
      int8.add(new Ref(i, dot));
      binary.add(new Ref(i, agree));
    }
    Comparator<Ref> order = Comparator.comparingDouble((Ref r) -> -r.score()).thenComparingInt(Ref::ordinal);
    int8.sort(order);
    binary.sort(order);
    var int8Hits = searcher.search(query, new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.INT8, false, 100), 20, Cancellation.NEVER);
    var binaryHits = searcher.search(query, new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.BINARY, false, 100), 20, Cancellation.NEVER);
    assertThat(int8Hits.hits()).extracting(DenseHit::ordinal).isEqualTo(int8.subList(0, 20).stream().map(Ref::ordinal).toList());
    assertThat(int8Hits.hits()).extracting(h -> (double) h.score()).isEqualTo(int8.subList(0, 20).stream().map(Ref::score).toList());
    assertThat(binaryHits.hits()).extracting(DenseHit::ordinal).isEqualTo(binary.subList(0, 20).stream().map(Ref::ordinal).toList());
    assertThat(binaryHits.hits()).extracting(h -> (double) h.score()).isEqualTo(binary.subList(0, 20).stream().map(Ref::score).toList());
    assertThat(int8Hits.bytesPerVector()).isEqualTo(DIM);
    assertThat(binaryHits.bytesPerVector()).isEqualTo(3);
  }

  @Test
  void rescoringReordersTheQuantizedShortlistByFloatScores() {
    float[] docs = random(5, N * DIM);
    int[] idOrder = new int[N];
    for (int i = 0; i < N; i++) {
      idOrder[i] = i;
    }
    ExactDenseSearcher searcher = new ExactDenseSearcher(docs, DIM, idOrder);
    float[] query = random(6, DIM);
    var shortlist = searcher.search(query, new DenseSearchOptions(VectorSimilarity.COSINE, 16, Quantization.BINARY, false, 50), 50, Cancellation.NEVER);
    var rescored = searcher.search(query, new DenseSearchOptions(VectorSimilarity.COSINE, 16, Quantization.BINARY, true, 50), 10, Cancellation.NEVER);
    List<Integer> candidates = shortlist.hits().stream().map(DenseHit::ordinal).toList();
    var exact = searcher.rescore(query, candidates.stream().mapToInt(Integer::intValue).toArray(), VectorSimilarity.COSINE, 16);
    assertThat(rescored.hits()).isEqualTo(exact.subList(0, 10));
    assertThat(rescored.hits()).allSatisfy(h -> assertThat(candidates).contains(h.ordinal()));
  }
}
