package dev.tenbin.index.quantize;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearchResult;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.rank.OrdinalHit;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * int8 and binary codes and scores against a direct implementation of the formulas: per-dimension
 * corpus min and max, step = (max − min) / 255, code = floor((x − min) / step) − 128 clipped to
 * [−128, 127] (−128 throughout a constant dimension), score = Σ code_q · code_d; bit = x > 0, score
 * = dims − Hamming distance. Both apply to the vectors the float variant scores: truncated, and for
 * cosine normalised in FP32.
 */
class QuantizationReferenceTest {
  private static final int N = 400;
  private static final int DIM = 37;
  private static final int CONSTANT_DIMENSION = 5;

  @TempDir Path dir;

  private static float[] gaussian(Random random, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) random.nextGaussian();
    }
    return v;
  }

  /** A corpus with one dimension that is 0 everywhere (so constant for dot and cosine alike). */
  private static float[] corpus(long seed) {
    float[] docs = gaussian(new Random(seed), N * DIM);
    for (int i = 0; i < N; i++) {
      docs[i * DIM + CONSTANT_DIMENSION] = 0f;
    }
    return docs;
  }

  /**
   * The float variant's view of one vector: first {@code dims} values, normalised in FP32 for
   * cosine.
   */
  private static float[] prepared(
      float[] values, int offset, int dims, VectorSimilarity similarity) {
    float[] out = Arrays.copyOfRange(values, offset, offset + dims);
    if (similarity == VectorSimilarity.COSINE) {
      double sum = 0;
      for (float x : out) {
        sum += (double) x * x;
      }
      float norm = (float) Math.sqrt(sum);
      for (int i = 0; i < dims; i++) {
        out[i] = norm > 0 ? out[i] / norm : out[i];
      }
    }
    return out;
  }

  private record Ranges(float[] min, float[] max) {}

  private static Ranges ranges(float[][] docs, int dims) {
    float[] min = new float[dims];
    float[] max = new float[dims];
    Arrays.fill(min, Float.POSITIVE_INFINITY);
    Arrays.fill(max, Float.NEGATIVE_INFINITY);
    for (float[] doc : docs) {
      for (int d = 0; d < dims; d++) {
        min[d] = Math.min(min[d], doc[d]);
        max[d] = Math.max(max[d], doc[d]);
      }
    }
    return new Ranges(min, max);
  }

  /** floor((x − min) / step) − 128 with step = (max − min) / 255, in exact rational arithmetic. */
  private static int referenceCode(float x, float min, float max) {
    if (max == min) {
      return -128;
    }
    // (x − min) / ((max − min) / 255) = 255 · (x − min) / (max − min): a quotient of two exact
    // values.
    BigDecimal low = new BigDecimal(min);
    BigDecimal numerator = new BigDecimal(x).subtract(low).multiply(BigDecimal.valueOf(255));
    int floor =
        numerator.divide(new BigDecimal(max).subtract(low), 0, RoundingMode.FLOOR).intValueExact();
    return Math.max(-128, Math.min(127, floor - 128));
  }

  private record Ref(int ordinal, long score) {}

  private static List<Ref> ranked(long[] scores, int[] idOrder) {
    List<Ref> refs = new ArrayList<>();
    for (int i = 0; i < scores.length; i++) {
      refs.add(new Ref(i, scores[i]));
    }
    refs.sort(
        Comparator.comparingLong((Ref r) -> -r.score())
            .thenComparingInt(r -> idOrder[r.ordinal()]));
    return refs;
  }

  private static void assertHitsEqual(List<OrdinalHit> hits, List<Ref> reference, String what) {
    List<Ref> top = reference.subList(0, hits.size());
    assertThat(hits)
        .extracting(OrdinalHit::ordinal)
        .as(what)
        .isEqualTo(top.stream().map(Ref::ordinal).toList());
    assertThat(hits)
        .extracting(OrdinalHit::score)
        .as(what)
        .isEqualTo(top.stream().map(r -> (float) r.score()).toList());
  }

  @Test
  void int8CodesScoresAndClippingEqualTheReferenceForEverySimilarityAndTruncation() {
    float[] docs = corpus(1);
    Random random = new Random(2);
    int[] idOrder = IntStream.range(0, N).map(i -> (i * 7) % N).toArray();
    DenseSearcher searcher = new DenseSearcher(docs, DIM, idOrder);
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      for (int truncate : new int[] {0, 20, 9}) {
        int dims = truncate == 0 ? DIM : truncate;
        String what = similarity + " d" + dims;
        float[][] prepared = new float[N][];
        for (int i = 0; i < N; i++) {
          prepared[i] = prepared(docs, i * DIM, dims, similarity);
        }
        Ranges ranges = ranges(prepared, dims);
        Int8Calibration calibration = searcher.int8Calibration(similarity, truncate);
        assertThat(calibration.min()).as(what).containsExactly(ranges.min());
        assertThat(calibration.max()).as(what).containsExactly(ranges.max());
        assertThat(calibration.constantDimensions()).as(what).isEqualTo(1);

        Int8Quantizer quantizer = searcher.int8(similarity, truncate);
        float[] flat = new float[N * dims];
        for (int i = 0; i < N; i++) {
          System.arraycopy(prepared[i], 0, flat, i * dims, dims);
        }
        byte[] codes = quantizer.encode(flat);
        for (int i = 0; i < N; i++) {
          for (int d = 0; d < dims; d++) {
            assertThat((int) codes[i * dims + d])
                .as("%s doc %d dim %d", what, i, d)
                .isEqualTo(referenceCode(prepared[i][d], ranges.min()[d], ranges.max()[d]));
          }
        }

        float[] query = gaussian(random, DIM);
        query[0] = 50f; // far above every corpus value: clipped for dot (and usually for cosine)
        float[] q = prepared(query, 0, dims, similarity);
        int[] queryCodes = new int[dims];
        int clipped = 0;
        for (int d = 0; d < dims; d++) {
          queryCodes[d] = referenceCode(q[d], ranges.min()[d], ranges.max()[d]);
          clipped += q[d] < ranges.min()[d] || q[d] > ranges.max()[d] ? 1 : 0;
        }
        long[] scores = new long[N];
        for (int i = 0; i < N; i++) {
          for (int d = 0; d < dims; d++) {
            scores[i] +=
                (long) queryCodes[d]
                    * referenceCode(prepared[i][d], ranges.min()[d], ranges.max()[d]);
          }
        }
        DenseSearchResult result =
            searcher.search(
                query,
                new DenseSearchOptions(similarity, truncate, Quantization.INT8, false, 0),
                40,
                Cancellation.NEVER);
        assertHitsEqual(result.hits(), ranked(scores, idOrder), what);
        assertThat(result.clippedQueryValues()).as(what).isEqualTo(clipped).isPositive();
        assertThat(result.queryValues()).isEqualTo(dims);
        assertThat(result.bytesPerVector()).isEqualTo(dims);
      }
    }
  }

  @Test
  void binaryCodesAndHammingScoresEqualTheReferenceForEverySimilarityAndTruncation() {
    float[] docs = corpus(3);
    Random random = new Random(4);
    int[] idOrder = IntStream.range(0, N).map(i -> N - 1 - i).toArray();
    DenseSearcher searcher = new DenseSearcher(docs, DIM, idOrder);
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      for (int truncate : new int[] {0, 20, 9}) {
        int dims = truncate == 0 ? DIM : truncate;
        float[] query = gaussian(random, DIM);
        float[] q = prepared(query, 0, dims, similarity);
        long[] scores = new long[N];
        for (int i = 0; i < N; i++) {
          float[] doc = prepared(docs, i * DIM, dims, similarity);
          for (int d = 0; d < dims; d++) {
            scores[i] += (q[d] > 0) == (doc[d] > 0) ? 1 : 0;
          }
        }
        DenseSearchResult result =
            searcher.search(
                query,
                new DenseSearchOptions(similarity, truncate, Quantization.BINARY, false, 0),
                60,
                Cancellation.NEVER);
        assertHitsEqual(result.hits(), ranked(scores, idOrder), similarity + " d" + dims);
        assertThat(result.bytesPerVector()).isEqualTo((dims + 7) / 8);
      }
    }
  }

  @Test
  void binaryCodesPackOneSignBitPerDimensionLowBitFirst() {
    int dims = 70;
    float[] vector = new float[dims];
    vector[0] = 1f;
    vector[1] = -1f;
    vector[2] = -0f;
    vector[3] = 0f;
    vector[63] = 1e-30f;
    vector[64] = 2f;
    vector[69] = 3f;
    long[] bits = BinaryQuantizer.encode(vector, dims);
    assertThat(bits).containsExactly(1L | (1L << 63), 1L | (1L << 5));
    assertThat(BinaryQuantizer.similarity(bits, bits, 0, dims)).isEqualTo(dims);
    assertThat(BinaryQuantizer.similarity(bits, new long[2], 0, dims)).isEqualTo(dims - 4);
  }

  @Test
  void theSimdInt8KernelEqualsTheScalarDotProductIncludingExtremeCodes() {
    Random random = new Random(6);
    for (int length = 1; length <= 100; length++) {
      byte[] query = new byte[length];
      byte[] docs = new byte[3 * length];
      random.nextBytes(query);
      random.nextBytes(docs);
      Int8Rows rows = Int8Rows.allocate(5, length);
      rows.set(2, docs); // rows 2, 3 and 4
      Int8Rows.Query rowQuery = Int8Rows.Query.of(query);
      for (int row = 0; row < 3; row++) {
        assertThat(rows.dot(rowQuery, row + 2))
            .as("length %d, row %d", length, row)
            .isEqualTo(Int8Quantizer.dot(query, docs, row * length));
      }
      assertThat(Arrays.copyOfRange(rows.signedCodes(), 2 * length, 5 * length)).isEqualTo(docs);
    }
    byte[] lowest = new byte[4096];
    Arrays.fill(lowest, (byte) -128);
    byte[] highest = new byte[4096];
    Arrays.fill(highest, (byte) 127);
    byte[] both = Arrays.copyOf(lowest, 2 * 4096);
    System.arraycopy(highest, 0, both, 4096, 4096);
    Int8Rows rows = Int8Rows.of(both, 4096);
    Int8Rows.Query lowestQuery = Int8Rows.Query.of(lowest);
    assertThat(rows.dot(lowestQuery, 0)).isEqualTo(4096 * 16384);
    assertThat(rows.dot(lowestQuery, 1)).isEqualTo(4096 * -16256);
    assertThat(rows.dot(Int8Rows.Query.of(highest), 1)).isEqualTo(4096 * 16129);
    assertThat(rows.saturated()).isEqualTo(2 * 4096);
  }

  @Test
  void aConstantDimensionCodesEveryValueAsTheLowestCodeAndCountsOtherQueryValuesAsClipped() {
    Int8Quantizer quantizer = Int8Quantizer.calibrate(new float[] {0.25f, -1f, 0.25f, 1f}, 2);
    assertThat(quantizer.code(0.25f, 0)).isEqualTo((byte) -128);
    assertThat(quantizer.code(-1f, 1)).isEqualTo((byte) -128);
    assertThat(quantizer.code(1f, 1)).isEqualTo((byte) 127);
    var query = quantizer.encodeQuery(new float[] {0.3f, 2f});
    assertThat(query.codes()).containsExactly((byte) -128, (byte) 127);
    assertThat(query.clipped()).isEqualTo(2);
    assertThat(quantizer.encodeQuery(new float[] {0.25f, 0f}).clipped()).isZero();
  }

  @Test
  void aCalibrationSurvivesWritingAndReadingExactly() {
    Int8Calibration calibration =
        new Int8Calibration(
            new float[] {-0f, 1.4e-45f, -3.4028235e38f, 0.1f},
            new float[] {0f, 1e-3f, 3.4028235e38f, 0.1f});
    Path file = dir.resolve("int8-cosine-4.calibration");
    calibration.write(file);
    Int8Calibration read = Int8Calibration.read(file);
    assertThat(read).isEqualTo(calibration);
    assertThat(read.min()[0]).isEqualTo(-0f);
    assertThat(read.constantDimensions()).isEqualTo(2);
    assertThat(Int8Quantizer.of(read).code(0.1f, 3)).isEqualTo((byte) -128);
  }

  @Test
  void bytesPerVectorAreFourPerFloatOnePerInt8CodeAndOnePerEightBits() {
    assertThat(DenseSearchOptions.bytesPerVector(Quantization.NONE, 384)).isEqualTo(1536);
    assertThat(DenseSearchOptions.bytesPerVector(Quantization.INT8, 384)).isEqualTo(384);
    assertThat(DenseSearchOptions.bytesPerVector(Quantization.BINARY, 384)).isEqualTo(48);
    assertThat(DenseSearchOptions.bytesPerVector(Quantization.BINARY, 65)).isEqualTo(9);
  }
}
