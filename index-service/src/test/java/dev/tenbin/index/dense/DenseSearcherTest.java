package dev.tenbin.index.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.CancelledException;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.quantize.Int8Calibration;
import dev.tenbin.index.rank.OrdinalHit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DenseSearcherTest {
  /** Not a multiple of 8, so full-dimension scans exercise the scalar tail. */
  private static final int DIM = 53;

  /**
   * Truncations covering every kernel path: pairs of 8-lane chunks, a single chunk, a scalar tail.
   */
  private static final int[] TRUNCATIONS = {0, 48, 24, 20, 7};

  /**
   * Float rounding allowance, relative to Σ|q_i·d_i| (for cosine over the normalised vectors). An
   * FP32 dot product of n ≤ 53 terms summed in 16 chains with FMA is within about 20
   * ulps·Σ|q_i·d_i| (≈ 1.2e-6) of the exact value; normalising in FP32 adds about 2 ulps per
   * product. 4e-6 bounds both. Two documents whose exact scores are closer than that may
   * legitimately swap.
   */
  private static final double RELATIVE_TOLERANCE = 4e-6;

  private record Reference(int ordinal, double score, double tolerance) {}

  private static float[] gaussian(Random random, int n) {
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      values[i] = (float) random.nextGaussian();
    }
    return values;
  }

  private static int[] shuffledIdOrder(Random random, int n) {
    List<Integer> order = new ArrayList<>(IntStream.range(0, n).boxed().toList());
    Collections.shuffle(order, random);
    return order.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Every document's exact score in double precision, ranked by score, then id order. */
  private static List<Reference> reference(
      float[] docs, int dim, float[] query, VectorSimilarity similarity, int dims, int[] idOrder) {
    double qNorm = 0;
    for (int i = 0; i < dims; i++) {
      qNorm += (double) query[i] * query[i];
    }
    List<Reference> all = new ArrayList<>();
    for (int d = 0; d < docs.length / dim; d++) {
      double dot = 0;
      double absolute = 0;
      double dNorm = 0;
      for (int i = 0; i < dims; i++) {
        double product = (double) docs[d * dim + i] * query[i];
        dot += product;
        absolute += Math.abs(product);
        dNorm += (double) docs[d * dim + i] * docs[d * dim + i];
      }
      double scale = similarity == VectorSimilarity.COSINE ? Math.sqrt(dNorm * qNorm) : 1;
      all.add(new Reference(d, dot / scale, RELATIVE_TOLERANCE * absolute / scale));
    }
    all.sort(
        Comparator.comparingDouble((Reference r) -> -r.score())
            .thenComparingInt(r -> idOrder[r.ordinal()]));
    return all;
  }

  /**
   * The hits equal the reference's top k position by position, except that two documents whose
   * exact scores lie within their rounding allowance may trade places; every score is within its
   * allowance of the exact one; and the hits are in the tie policy's order of their own scores.
   */
  private static void assertMatchesReference(
      List<OrdinalHit> hits, List<Reference> reference, int k, int[] idOrder, String what) {
    assertThat(hits).as(what).hasSize(Math.min(k, reference.size()));
    Reference[] byOrdinal = new Reference[reference.size()];
    reference.forEach(r -> byOrdinal[r.ordinal()] = r);
    for (int i = 0; i < hits.size(); i++) {
      Reference got = byOrdinal[hits.get(i).ordinal()];
      Reference expected = reference.get(i);
      assertThat((double) hits.get(i).score())
          .as("%s score at %d", what, i)
          .isCloseTo(got.score(), within(got.tolerance()));
      if (got.ordinal() != expected.ordinal()) {
        assertThat(Math.abs(got.score() - expected.score()))
            .as(
                "%s: ordinal %d at rank %d instead of %d is not a near tie",
                what, got.ordinal(), i, expected.ordinal())
            .isLessThanOrEqualTo(got.tolerance() + expected.tolerance());
      }
    }
    assertThat(new HashSet<>(hits.stream().map(OrdinalHit::ordinal).toList())).hasSize(hits.size());
    for (int i = 1; i < hits.size(); i++) {
      OrdinalHit before = hits.get(i - 1);
      OrdinalHit after = hits.get(i);
      assertThat(
              before.score() > after.score()
                  || (before.score() == after.score()
                      && idOrder[before.ordinal()] < idOrder[after.ordinal()]))
          .as("%s: rank %d follows the tie policy", what, i)
          .isTrue();
    }
  }

  @Test
  void exactSearchEqualsADoublePrecisionBruteForceForBothSimilaritiesAndEveryTruncation() {
    Random random = new Random(7);
    int n = 600;
    float[] docs = gaussian(random, n * DIM);
    // Exact copies of document 0 tie with it exactly; a scaled copy ties with it in cosine only.
    for (int copy : new int[] {17, 250, 599}) {
      System.arraycopy(docs, 0, docs, copy * DIM, DIM);
    }
    for (int i = 0; i < DIM; i++) {
      docs[300 * DIM + i] = 2 * docs[i];
    }
    int[] idOrder = shuffledIdOrder(random, n);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, idOrder);
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      for (int truncate : TRUNCATIONS) {
        int dims = truncate == 0 ? DIM : truncate;
        for (int q = 0; q < 15; q++) {
          float[] query = q == 0 ? Arrays.copyOf(docs, DIM) : gaussian(random, DIM);
          List<OrdinalHit> hits =
              searcher.search(query, similarity, truncate, 25, Cancellation.NEVER);
          assertMatchesReference(
              hits,
              reference(docs, DIM, query, similarity, dims, idOrder),
              25,
              idOrder,
              similarity + " d" + dims + " q" + q);
        }
      }
    }
  }

  @Test
  void smallIntegerVectorsRankExactlyAsTheReferenceIncludingEveryTie() {
    // Products and sums of small integers are exact in FP32: scores equal the reference exactly and
    // the many ties must be broken by id order alone.
    Random random = new Random(3);
    int n = 2 * DenseSearcher.SCAN_BLOCK + 1_000; // ties across blocks of the parallel scan
    float[] docs = new float[n * DIM];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = random.nextInt(5) - 2;
    }
    int[] idOrder = shuffledIdOrder(random, n);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, idOrder);
    for (int truncate : TRUNCATIONS) {
      int dims = truncate == 0 ? DIM : truncate;
      float[] query = new float[DIM];
      for (int i = 0; i < DIM; i++) {
        query[i] = random.nextInt(3) - 1;
      }
      List<Reference> reference = reference(docs, DIM, query, VectorSimilarity.DOT, dims, idOrder);
      List<OrdinalHit> hits =
          searcher.search(query, VectorSimilarity.DOT, truncate, 200, Cancellation.NEVER);
      assertThat(hits)
          .extracting(OrdinalHit::ordinal)
          .as("d%d", dims)
          .isEqualTo(reference.subList(0, 200).stream().map(Reference::ordinal).toList());
      assertThat(hits)
          .extracting(h -> (double) h.score())
          .as("d%d", dims)
          .isEqualTo(reference.subList(0, 200).stream().map(Reference::score).toList());
    }
  }

  @Test
  void identicalVectorsGetBitIdenticalScoresAndFollowIdOrder() {
    float[] docs = {1, 0, 0.3f, 1, 0, 0.3f, 0, 1, 0, 1, 0, 0.3f};
    DenseSearcher searcher = new DenseSearcher(docs, 3, new int[] {2, 0, 3, 1});
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      List<OrdinalHit> hits =
          searcher.search(new float[] {0.7f, 0.1f, 0.2f}, similarity, 0, 4, Cancellation.NEVER);
      assertThat(hits).extracting(OrdinalHit::ordinal).containsExactly(1, 3, 0, 2);
      assertThat(hits.get(0).score()).isEqualTo(hits.get(1).score()).isEqualTo(hits.get(2).score());
    }
  }

  @Test
  void cosineTruncationRenormalisesTheKeptDimensions() {
    float[] docs = {3, 4, 100, 1, 0, 0};
    DenseSearcher searcher = new DenseSearcher(docs, 3, new int[] {0, 1});
    List<OrdinalHit> hits =
        searcher.search(new float[] {3, 4, 0}, VectorSimilarity.COSINE, 2, 2, Cancellation.NEVER);
    assertThat(hits.get(0).ordinal()).isZero();
    assertThat(hits.get(0).score()).isCloseTo(1f, within(1e-6f));
    assertThat(hits.get(1).score()).isCloseTo(0.6f, within(1e-6f));
    // Dot truncation does not normalise.
    assertThat(
            searcher
                .search(new float[] {3, 4, 0}, VectorSimilarity.DOT, 2, 1, Cancellation.NEVER)
                .get(0)
                .score())
        .isEqualTo(25f);
  }

  @Test
  void aQueryGivenAlreadyTruncatedScoresLikeTheFullOne() {
    Random random = new Random(1);
    float[] docs = gaussian(random, 50 * DIM);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, IntStream.range(0, 50).toArray());
    float[] query = gaussian(random, DIM);
    assertThat(
            searcher.search(
                Arrays.copyOf(query, 20), VectorSimilarity.COSINE, 20, 10, Cancellation.NEVER))
        .isEqualTo(searcher.search(query, VectorSimilarity.COSINE, 20, 10, Cancellation.NEVER));
  }

  private static List<DenseSearchOptions> everyScanVariant(int truncate) {
    List<DenseSearchOptions> variants = new ArrayList<>();
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      for (Quantization quantization : Quantization.values()) {
        for (boolean rescore : new boolean[] {false, true}) {
          variants.add(new DenseSearchOptions(similarity, truncate, quantization, rescore, 30));
        }
      }
    }
    return variants;
  }

  @Test
  void aBatchOfQueriesReturnsWhatEachQueryReturnsAlone() {
    Random random = new Random(5);
    int n = 5_000;
    float[] docs = gaussian(random, n * DIM);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, shuffledIdOrder(random, n));
    List<float[]> queries = new ArrayList<>();
    for (int q = 0; q < 7; q++) {
      queries.add(gaussian(random, DIM));
    }
    for (int truncate : new int[] {0, 24}) {
      for (DenseSearchOptions options : everyScanVariant(truncate)) {
        List<DenseSearchResult> batch =
            searcher.searchBatch(queries, options, 10, Cancellation.NEVER);
        for (int q = 0; q < queries.size(); q++) {
          assertThat(batch.get(q))
              .as("%s query %d", options, q)
              .isEqualTo(searcher.search(queries.get(q), options, 10, Cancellation.NEVER));
        }
      }
    }
  }

  @Test
  void aBatchRanksAsScoringEveryDocumentAndSelectingFromAllTheScoresWould() {
    Random random = new Random(17);
    int n = 2 * DenseSearcher.SCAN_BLOCK + 101;
    float[] docs = gaussian(random, n * DIM);
    // Exact copies inside a run, across runs and across blocks: ties ordered by id wherever
    // they were scored.
    for (int copy :
        new int[] {6, 90, 341, DenseSearcher.SCAN_BLOCK, 2 * DenseSearcher.SCAN_BLOCK + 100}) {
      System.arraycopy(docs, 5 * DIM, docs, copy * DIM, DIM);
    }
    int[] idOrder = shuffledIdOrder(random, n);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, idOrder);
    List<float[]> queries = new ArrayList<>();
    queries.add(Arrays.copyOfRange(docs, 5 * DIM, 6 * DIM));
    for (int q = 1; q < 11; q++) { // two groups of four, then three alone
      queries.add(gaussian(random, DIM));
    }
    dev.tenbin.index.rank.TopK topK = new dev.tenbin.index.rank.TopK(idOrder);
    // 200,000 hits a query: more than the documents, and the batch goes in chunks of five.
    for (int k : new int[] {1, 50, 200_000}) {
      List<DenseSearchResult> batch =
          searcher.searchBatch(
              queries, DenseSearchOptions.exact(VectorSimilarity.DOT), k, Cancellation.NEVER);
      for (int q = 0; q < queries.size(); q++) {
        float[] scores = new float[n];
        for (int d = 0; d < n; d++) {
          scores[d] = DotProduct.dot(queries.get(q), docs, d * DIM, DIM);
        }
        assertThat(batch.get(q).hits()).as("k %d query %d", k, q).isEqualTo(topK.select(scores, k));
      }
    }
  }

  @Test
  void resultsAreIdenticalWhateverTheNumberOfThreads() throws Exception {
    Random random = new Random(11);
    int n = 3 * DenseSearcher.SCAN_BLOCK + 17;
    float[] docs = gaussian(random, n * DIM);
    // Copies across block boundaries tie exactly and must be ordered by id whichever thread scored
    // them.
    for (int copy :
        new int[] {
          DenseSearcher.SCAN_BLOCK - 1, DenseSearcher.SCAN_BLOCK, 3 * DenseSearcher.SCAN_BLOCK + 3
        }) {
      System.arraycopy(docs, 5 * DIM, docs, copy * DIM, DIM);
    }
    DenseSearcher searcher = new DenseSearcher(docs, DIM, shuffledIdOrder(random, n));
    float[] query = Arrays.copyOfRange(docs, 5 * DIM, 6 * DIM);
    for (DenseSearchOptions options : everyScanVariant(0)) {
      DenseSearchResult common = searcher.search(query, options, 50, Cancellation.NEVER);
      for (int threads : new int[] {1, 3}) {
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
          assertThat(
                  pool.submit(() -> searcher.search(query, options, 50, Cancellation.NEVER)).get())
              .as("%s on %d threads", options, threads)
              .isEqualTo(common);
        } finally {
          pool.shutdown();
        }
      }
    }
  }

  @Test
  void rescoringTakesTheQuantizedShortlistAndOrdersItByFloatScores() {
    Random random = new Random(5);
    int n = 400;
    float[] docs = gaussian(random, n * DIM);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, shuffledIdOrder(random, n));
    float[] query = gaussian(random, DIM);
    for (Quantization quantization : new Quantization[] {Quantization.INT8, Quantization.BINARY}) {
      var shortlist =
          searcher.search(
              query,
              new DenseSearchOptions(VectorSimilarity.COSINE, 24, quantization, false, 0),
              50,
              Cancellation.NEVER);
      var rescored =
          searcher.search(
              query,
              new DenseSearchOptions(VectorSimilarity.COSINE, 24, quantization, true, 50),
              10,
              Cancellation.NEVER);
      int[] candidates = shortlist.hits().stream().mapToInt(OrdinalHit::ordinal).toArray();
      List<OrdinalHit> floatScores =
          searcher.rescore(query, candidates, VectorSimilarity.COSINE, 24);
      assertThat(rescored.hits()).isEqualTo(floatScores.subList(0, 10));
      assertThat(rescored.bytesPerVector())
          .isEqualTo(DenseSearchOptions.bytesPerVector(quantization, 24));
      // The float scores are those of the float scan.
      List<OrdinalHit> exact =
          searcher.search(query, VectorSimilarity.COSINE, 24, n, Cancellation.NEVER);
      for (OrdinalHit hit : rescored.hits()) {
        assertThat(exact).contains(hit);
      }
    }
  }

  @Test
  void rescoringReordersTheShortlistEvenWhenItIsExactlyKLong() {
    Random random = new Random(6);
    int n = 400;
    float[] docs = gaussian(random, n * DIM);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, shuffledIdOrder(random, n));
    float[] query = gaussian(random, DIM);
    // k = rescoreDepth = 100, as every evaluation asks: the binary top-100 must come back in float
    // order.
    var binary =
        searcher.search(
            query,
            new DenseSearchOptions(VectorSimilarity.COSINE, 0, Quantization.BINARY, false, 100),
            100,
            Cancellation.NEVER);
    var rescored =
        searcher.search(
            query,
            new DenseSearchOptions(VectorSimilarity.COSINE, 0, Quantization.BINARY, true, 100),
            100,
            Cancellation.NEVER);
    int[] candidates = binary.hits().stream().mapToInt(OrdinalHit::ordinal).toArray();
    assertThat(rescored.hits())
        .isEqualTo(searcher.rescore(query, candidates, VectorSimilarity.COSINE, 0));
    assertThat(rescored.hits()).isNotEqualTo(binary.hits());
  }

  @Test
  void aCandidateSetIsScoredAsTheVariantsScanWouldScoreItOncePerDocument() {
    Random random = new Random(8);
    int n = 300;
    float[] docs = gaussian(random, n * DIM);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, shuffledIdOrder(random, n));
    float[] query = gaussian(random, DIM);
    int[] candidates = {40, 7, 299, 7, 0, 123};
    for (DenseSearchOptions options : everyScanVariant(20)) {
      DenseSearchResult rescored = searcher.rescore(query, candidates, options, Cancellation.NEVER);
      DenseSearchResult scan =
          searcher.search(
              query,
              options.rescore()
                  ? new DenseSearchOptions(options.similarity(), 20, Quantization.NONE, false, 0)
                  : options,
              n,
              Cancellation.NEVER);
      assertThat(rescored.hits())
          .extracting(OrdinalHit::ordinal)
          .containsExactlyInAnyOrder(40, 7, 299, 0, 123);
      assertThat(scan.hits()).as("%s", options).containsSubsequence(rescored.hits());
    }
  }

  @Test
  void theInt8ScanScoresEveryDocumentAsScoringItAloneWouldWhateverTheRunLength() {
    // 384 dimensions: runs of 341 codes (four streams of 85 and one row left), a last run of four
    // rows in the first block and of two in the second, and collections shorter than four rows.
    int dims = 384;
    Random random = new Random(23);
    for (int n : new int[] {1, 3, 5, DenseSearcher.SCAN_BLOCK + 343}) {
      float[] docs = gaussian(random, n * dims);
      DenseSearcher searcher = new DenseSearcher(docs, dims, shuffledIdOrder(random, n));
      float[] query = gaussian(random, dims);
      int[] every = IntStream.range(0, n).toArray();
      DenseSearchOptions int8 =
          new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.INT8, false, 0);

      DenseSearchResult scanned = searcher.search(query, int8, n, Cancellation.NEVER);
      DenseSearchResult alone = searcher.rescore(query, every, int8, Cancellation.NEVER);

      assertThat(scanned.hits()).as("%d documents", n).hasSize(n).isEqualTo(alone.hits());
    }
  }

  @Test
  void int8WithGivenRangesQuantizesWithThemAndTheSnapshotsOwnAreUnchanged() {
    int dims = 24;
    Random random = new Random(31);
    int n = 300;
    float[] docs = gaussian(random, n * dims);
    DenseSearcher searcher = new DenseSearcher(docs, dims, shuffledIdOrder(random, n));
    float[] query = gaussian(random, dims);
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      for (int truncate : new int[] {0, 16}) {
        DenseSearchOptions own =
            new DenseSearchOptions(similarity, truncate, Quantization.INT8, false, 0);
        Int8Calibration ownRanges = searcher.int8Calibration(similarity, truncate);
        // Given the snapshot's own ranges: the very same hits.
        DenseSearchOptions same =
            new DenseSearchOptions(
                similarity, truncate, Quantization.INT8, false, 0, false, ownRanges);
        assertThat(searcher.search(query, same, 20, Cancellation.NEVER).hits())
            .isEqualTo(searcher.search(query, own, 20, Cancellation.NEVER).hits());
        // Wider ranges: other codes and scores, as quantizing with those ranges directly gives.
        float[] min = ownRanges.min();
        float[] max = ownRanges.max();
        for (int d = 0; d < min.length; d++) {
          min[d] -= 1f;
          max[d] += 0.5f;
        }
        Int8Calibration wider = new Int8Calibration(min, max);
        DenseSearchOptions given =
            new DenseSearchOptions(similarity, truncate, Quantization.INT8, false, 0, false, wider);
        List<OrdinalHit> widerHits = searcher.search(query, given, 20, Cancellation.NEVER).hits();
        assertThat(widerHits)
            .isNotEqualTo(searcher.search(query, own, 20, Cancellation.NEVER).hits());
        int[] every = IntStream.range(0, n).toArray();
        assertThat(searcher.rescore(query, every, given, Cancellation.NEVER).hits().subList(0, 20))
            .isEqualTo(widerHits);
        assertThat(searcher.int8Calibration(given)).isEqualTo(wider);
        assertThat(searcher.int8Calibration(own)).isEqualTo(ownRanges);
        assertThat(searcher.int8Calibration(similarity, truncate)).isEqualTo(ownRanges);
      }
    }
  }

  @Test
  void givenInt8RangesOfAnotherWidthAreInvalidArgumentNamingThem() {
    DenseSearcher searcher = new DenseSearcher(new float[] {1, 0, 0, 1}, 2, new int[] {0, 1});
    DenseSearchOptions given =
        new DenseSearchOptions(
            VectorSimilarity.DOT,
            0,
            Quantization.INT8,
            false,
            0,
            false,
            new Int8Calibration(new float[] {0, 0, 0}, new float[] {1, 1, 1}));
    assertThatThrownBy(() -> searcher.search(new float[] {1, 1}, given, 1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("int8_calibration");
  }

  @Test
  void kBeyondTheCorpusReturnsEveryDocumentAndZeroReturnsNone() {
    DenseSearcher searcher = new DenseSearcher(new float[] {1, 0, 0, 1}, 2, new int[] {1, 0});
    assertThat(searcher.search(new float[] {1, 1}, VectorSimilarity.DOT, 0, 10, Cancellation.NEVER))
        .containsExactly(new OrdinalHit(1, 1f), new OrdinalHit(0, 1f));
    assertThat(searcher.search(new float[] {1, 1}, VectorSimilarity.DOT, 0, 0, Cancellation.NEVER))
        .isEmpty();
  }

  @Test
  void anEmptySnapshotAnswersEveryVariantWithNoHits() {
    DenseSearcher searcher = new DenseSearcher(new float[0], 4, new int[0]);
    for (DenseSearchOptions options : everyScanVariant(0)) {
      assertThat(searcher.search(new float[4], options, 10, Cancellation.NEVER).hits()).isEmpty();
    }
    assertThat(searcher.int8Calibration(VectorSimilarity.COSINE, 0).min()).containsOnly(0f);
  }

  @Test
  void invalidQueriesAreRejectedNamingTheField() {
    DenseSearcher searcher = new DenseSearcher(new float[] {1, 0}, 2, new int[] {0});
    DenseSearchOptions exact = DenseSearchOptions.exact(VectorSimilarity.DOT);
    assertThatThrownBy(() -> searcher.search(new float[3], exact, 1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("queries.dense");
    assertThatThrownBy(
            () -> searcher.search(new float[] {1, Float.NaN}, exact, 1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dimension 1");
    assertThatThrownBy(
            () ->
                searcher.searchBatch(
                    List.of(new float[2], new float[1]), exact, 1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("queries[1].dense");
    assertThatThrownBy(
            () -> searcher.search(new float[2], VectorSimilarity.DOT, 5, 1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("dense.truncate_dimensions");
    assertThatThrownBy(() -> searcher.search(new float[2], exact, -1, Cancellation.NEVER))
        .isInstanceOf(InvalidInputException.class)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("top_k");
  }

  @Test
  void aCancelledCallerStopsTheScan() {
    DenseSearcher searcher =
        new DenseSearcher(
            new float[2 * DenseSearcher.SCAN_BLOCK * 2], 2, new int[2 * DenseSearcher.SCAN_BLOCK]);
    assertThatThrownBy(
            () ->
                searcher.search(
                    new float[] {1, 1},
                    DenseSearchOptions.exact(VectorSimilarity.DOT),
                    5,
                    () -> true))
        .isInstanceOf(CancelledException.class);
  }

  @Test
  void storedBytesAddTheFloatVectorsToARescoredQuantizationAndScannedBytesDoNot() {
    Random random = new Random(9);
    int n = 300;
    float[] docs = gaussian(random, n * DIM);
    DenseSearcher searcher = new DenseSearcher(docs, DIM, shuffledIdOrder(random, n));
    float[] query = gaussian(random, DIM);
    int kept = 16;
    for (boolean approximate : List.of(false, true)) {
      for (Quantization quantization : Quantization.values()) {
        for (boolean rescore : List.of(false, true)) {
          var result =
              searcher.search(
                  query,
                  new DenseSearchOptions(
                      VectorSimilarity.COSINE, kept, quantization, rescore, 0, approximate),
                  5,
                  Cancellation.NEVER);
          long scanned =
              switch (quantization) {
                case NONE -> 4L * kept;
                case INT8 -> kept;
                case BINARY -> (kept + 7) / 8;
              };
          String what = quantization + " rescore=" + rescore + " hnsw=" + approximate;
          assertThat(result.bytesPerVector()).as(what).isEqualTo(scanned);
          assertThat(result.storedBytesPerVector())
              .as(what)
              .isEqualTo(
                  rescore && quantization != Quantization.NONE ? scanned + 4L * kept : scanned);
        }
      }
    }
  }

  @Test
  void int8SaturationCountsTheEndCodesOfDocumentsAndQueries() {
    // Dimension ranges [0, 1] and [0, 2]: the minimum and maximum of each take the end codes.
    float[] docs = {0f, 0f, 1f, 2f, 0.5f, 1f};
    DenseSearcher searcher = new DenseSearcher(docs, 2, new int[] {0, 1, 2});
    assertThat(searcher.int8SaturatedDocumentValues(VectorSimilarity.DOT, 0)).isEqualTo(4);
    // 2 is above the first range (clipped to 127), 0.5 is inside the second.
    var result =
        searcher.search(
            new float[] {2f, 0.5f},
            new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.INT8, false, 0),
            3,
            Cancellation.NEVER);
    assertThat(result.clippedQueryValues()).isEqualTo(1);
    assertThat(result.saturatedQueryValues()).isEqualTo(1);
    var inside =
        searcher.search(
            new float[] {0f, 0.5f},
            new DenseSearchOptions(VectorSimilarity.DOT, 0, Quantization.INT8, false, 0),
            3,
            Cancellation.NEVER);
    assertThat(inside.clippedQueryValues()).isZero();
    assertThat(inside.saturatedQueryValues()).isEqualTo(1);
  }
}
