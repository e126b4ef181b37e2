package dev.tenbin.index.dense;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.quantize.BinaryQuantizer;
import dev.tenbin.index.quantize.Int8Calibration;
import dev.tenbin.index.quantize.Int8Quantizer;
import dev.tenbin.index.quantize.Int8Rows;
import dev.tenbin.index.rank.OrdinalHit;
import dev.tenbin.index.rank.TopK;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * Top-k dense search over one committed snapshot of float vectors, in every efficiency variant
 * derived from that one float encode: cosine or dot, truncated to leading dimensions or not,
 * scanned in float, int8 or binary, optionally re-scored in float, or proposed by an HNSW graph.
 *
 * <h2>Scores</h2>
 *
 * <ul>
 *   <li><b>Truncation</b> keeps the first d dimensions of documents and query (Matryoshka, or plain
 *       truncation for a model not trained for d). For cosine the truncated vectors are
 *       re-normalised.
 *   <li><b>Cosine</b> is the dot product of unit vectors. Each stored vector (after truncation) and
 *       each query is normalised once in FP32: the norm is accumulated in double, rounded to float,
 *       and every value divided by it in float. A zero vector stays zero and scores 0.
 *   <li><b>Float</b> scores are FP32 dot products from {@link DotProduct}: FMA in SIMD lanes, then
 *       a fixed reduction order, so a score does not depend on the JIT, the thread count or whether
 *       the query came alone or in a batch. They differ from a double-precision reference by
 *       rounding only (a relative 1e-6 or so for hundreds of dimensions), so two documents whose
 *       exact scores are that close may swap places against the reference; identical vectors always
 *       get bit-identical scores and are ordered by id.
 *   <li><b>int8</b> ({@link Int8Quantizer}) scans codes of the vectors the float variant scores
 *       (truncated, and for cosine normalised), calibrated per (similarity, truncation) on the
 *       corpus only; the score is the int dot product of the query's and the document's codes,
 *       returned as a float. The query values outside the corpus ranges are clipped and counted.
 *   <li><b>Binary</b> ({@link BinaryQuantizer}) scans sign bits of the same vectors; the score is
 *       the Hamming similarity dims − hamming distance, an integer returned as a float.
 *   <li><b>Rescore</b> takes the quantized top max(k, rescoreDepth) and returns its best k by float
 *       score (the scores are then those of the float variant).
 *   <li><b>Approximate</b> asks a Lucene HNSW graph over the first stage's vectors for max(k,
 *       rescoreDepth) candidates and returns their best k as the exact scan of the variant would
 *       score them. Float: the graph over the float variant's vectors, candidates scored in float.
 *       int8: the graph over the vectors as int8 with one scale for every dimension (so its dot
 *       product is the float one up to rounding; the scan's per-dimension codes would distort the
 *       geometry), candidates scored by the int8 scan's code dot product. Binary: the graph over
 *       the sign bits as ±1 bytes, navigated by their dot product 2 · (Hamming similarity) − d,
 *       candidates scored by Hamming similarity. With rescore the quantized candidates are scored
 *       in float instead. The recall of the top-k against the exact scan's top-k of the same
 *       variant (same truncation, quantization and rescore) is reported: what the graph loses,
 *       apart from what the quantization loses.
 * </ul>
 *
 * <h2>Order and determinism</h2>
 *
 * Hits come in ranking order: score descending, then document id ascending, through {@code idOrder}
 * (ordinal → position of the document's id in ascending {@link String#compareTo} order; among equal
 * scores the smaller position ranks first). The scan is split into blocks of 4,096 documents on the
 * common fork-join pool (or the pool the caller runs in); each document's score depends on nothing
 * else and the order is total, so results are identical whatever the number of threads.
 *
 * <h2>Lifecycle</h2>
 *
 * Built over the committed vectors, mapped ({@link DenseVectorStore#mapped()}: the float scan reads
 * the file's pages, no heap copy) or in a heap array; build a new searcher after a commit. The
 * prepared vectors, codes and graph of a variant are built on its first use and kept (the int8
 * calibration with them, see {@link #int8Calibration}). Kept on the heap: the int8 codes (a quarter
 * of the float bytes, plus 4 bytes per vector, {@link Int8Rows}), the sign bits (1/32), the HNSW
 * graphs (Lucene's in-memory directory, which holds its own copy of the vectors it links), and for
 * cosine or truncated variants the prepared floats (normalised or truncated copies). The
 * full-dimension dot variant scans the given vectors as they are. Thread-safe.
 */
public final class DenseSearcher {
  /** Documents per parallel scan task. */
  static final int SCAN_BLOCK = 4096;

  /** Bytes of stored vectors scored against every query of a batch before moving on (L2-sized). */
  private static final int CACHE_BLOCK_BYTES = 128 * 1024;

  /**
   * Heap entries (an ordinal and a score each) one scan task keeps for a batch chunk, 2^20 (8 MiB):
   * a batch is scanned in chunks of at most this many entries over the shortlist depth queries.
   */
  private static final long BATCH_HEAP_ENTRIES = 1L << 20;

  private final StoredVectors vectors;
  private final int dimension;
  private final int size;
  private final int[] idOrder;
  private final TopK topK;
  private final ConcurrentHashMap<VariantKey, Variant> variants = new ConcurrentHashMap<>();

  /**
   * @param vectors committed vectors, row-major, {@code dimension} floats each (not copied: do not
   *     modify)
   * @param idOrder ordinal → position of the document's id in ascending id order
   */
  public DenseSearcher(float[] vectors, int dimension, int[] idOrder) {
    this(StoredVectors.of(vectors, dimension), idOrder);
  }

  /**
   * @param vectors committed vectors: mapped ({@link DenseVectorStore#mapped()}) or a heap array;
   *     read in place, not copied
   * @param idOrder ordinal → position of the document's id in ascending id order
   */
  public DenseSearcher(StoredVectors vectors, int[] idOrder) {
    if (idOrder.length != vectors.size()) {
      throw new IllegalArgumentException(
          "idOrder has " + idOrder.length + " entries for " + vectors.size() + " vectors");
    }
    this.vectors = vectors;
    this.dimension = vectors.dimension();
    this.size = vectors.size();
    this.idOrder = idOrder;
    this.topK = new TopK(idOrder);
  }

  /** Documents searched. */
  public int size() {
    return size;
  }

  public int dimension() {
    return dimension;
  }

  /** One query's top {@code k} in the variant {@code options} names. */
  public DenseSearchResult search(
      float[] query, DenseSearchOptions options, int k, Cancellation cancellation) {
    return searchAll(List.of(query), i -> "queries.dense", options, k, cancellation).get(0);
  }

  /**
   * The top {@code k} of many queries, identical to calling {@link #search} for each. The float
   * scan reads each block of stored vectors once for four queries and keeps blocks cache-resident
   * across the batch, so it runs several times faster per query than one query at a time.
   */
  public List<DenseSearchResult> searchBatch(
      List<float[]> queries, DenseSearchOptions options, int k, Cancellation cancellation) {
    return searchAll(queries, i -> "queries[" + i + "].dense", options, k, cancellation);
  }

  /**
   * An approximate variant's top {@code k} ({@code options.approximate()} must be set) without the
   * exact scan that {@link #search} runs to measure its recall: the result's recall is NaN. What a
   * latency measurement of the graph times; hits and scores equal {@link #search}'s.
   */
  public DenseSearchResult searchApproximateOnly(
      float[] query, DenseSearchOptions options, int k, Cancellation cancellation) {
    if (!options.approximate()) {
      throw new IllegalArgumentException("options must ask for the approximate (HNSW) variant");
    }
    if (k < 0) {
      throw new InvalidInputException("top_k", "top_k must not be negative, got " + k);
    }
    int dims = resolveDimensions(options.truncateDimensions());
    PreparedQuery prepared = prepare(query, "queries.dense", options.similarity(), dims);
    return approximate(prepared, null, options, dims, k, cancellation);
  }

  /** The exact float top {@code k} (the base variant). */
  public List<OrdinalHit> search(
      float[] query,
      VectorSimilarity similarity,
      int truncateDimensions,
      int k,
      Cancellation cancellation) {
    return search(
            query,
            new DenseSearchOptions(similarity, truncateDimensions, Quantization.NONE, false, 0),
            k,
            cancellation)
        .hits();
  }

  /**
   * Scores a fixed candidate set (any retrieval model as a reranker) and returns all of it in
   * ranking order. Each candidate gets the score the variant's scan would give it: float, or with
   * {@code rescore} float too; int8 code dot product; Hamming similarity. {@code approximate} and
   * {@code rescoreDepth} do not apply. A candidate listed twice is scored once.
   *
   * @throws IllegalArgumentException when an ordinal is not one of this snapshot's
   */
  public DenseSearchResult rescore(
      float[] query,
      int[] candidateOrdinals,
      DenseSearchOptions options,
      Cancellation cancellation) {
    int dims = resolveDimensions(options.truncateDimensions());
    Variant variant = variant(options, dims);
    PreparedQuery q = prepare(query, "queries.dense", options.similarity(), dims);
    Quantization scoring = options.rescore() ? Quantization.NONE : options.quantization();
    int[] candidates = distinct(candidateOrdinals);
    List<OrdinalHit> hits = new ArrayList<>(candidates.length);
    int clipped = 0;
    int saturated = 0;
    switch (scoring) {
      case NONE -> {
        StoredVectors docs = variant.floats();
        float[] row = new float[dims];
        for (int i = 0; i < candidates.length; i++) {
          if ((i & 1023) == 0) {
            cancellation.throwIfCancelled();
          }
          docs.row(candidates[i], row);
          hits.add(TopK.hit(candidates[i], DotProduct.dot(q.floats(), row, 0, dims)));
        }
      }
      case INT8 -> {
        Int8Quantizer.QueryCodes codes = variant.quantizer().encodeQuery(q.floats());
        clipped = codes.clipped();
        saturated = codes.saturated();
        Int8Rows.Query rowQuery = codes.forRows();
        Int8Rows docs = variant.int8Rows();
        for (int ordinal : candidates) {
          hits.add(TopK.hit(ordinal, docs.dot(rowQuery, ordinal)));
        }
      }
      case BINARY -> {
        long[] bits = BinaryQuantizer.encode(q.floats(), dims);
        long[] docs = variant.bits();
        for (int ordinal : candidates) {
          hits.add(
              TopK.hit(
                  ordinal, BinaryQuantizer.similarity(bits, docs, ordinal * bits.length, dims)));
        }
      }
    }
    hits.sort(topK.ranking());
    return new DenseSearchResult(
        hits,
        clipped,
        saturated,
        dims,
        DenseSearchOptions.bytesPerVector(options.quantization(), dims),
        storedBytes(options, dims),
        Double.NaN);
  }

  private static long storedBytes(DenseSearchOptions options, int dims) {
    return DenseSearchOptions.storedBytesPerVector(options.quantization(), options.rescore(), dims);
  }

  /** Float scores of a fixed candidate set, in ranking order. */
  public List<OrdinalHit> rescore(
      float[] query, int[] ordinals, VectorSimilarity similarity, int truncateDimensions) {
    return rescore(
            query,
            ordinals,
            new DenseSearchOptions(similarity, truncateDimensions, Quantization.NONE, false, 0),
            Cancellation.NEVER)
        .hits();
  }

  /**
   * The int8 quantizer of a (similarity, truncation) variant, calibrated on this snapshot's vectors
   * on first use. Over an empty snapshot every range is [0, 0].
   */
  public Int8Quantizer int8(VectorSimilarity similarity, int truncateDimensions) {
    return variant(similarity, resolveDimensions(truncateDimensions)).quantizer();
  }

  /** The corpus ranges the int8 variant of (similarity, truncation) quantizes with. */
  public Int8Calibration int8Calibration(VectorSimilarity similarity, int truncateDimensions) {
    return int8(similarity, truncateDimensions).calibration();
  }

  /**
   * The ranges an int8 search with {@code options} quantizes with: the given ones ({@link
   * DenseSearchOptions#int8Calibration}) or the snapshot's own.
   */
  public Int8Calibration int8Calibration(DenseSearchOptions options) {
    return variant(options, resolveDimensions(options.truncateDimensions()))
        .quantizer()
        .calibration();
  }

  /**
   * How many of the int8 variant's document codes sit at an end code (−128 or 127), of {@link
   * #size()} · dimensions kept. With the snapshot's own ranges documents are never clipped, but
   * every dimension's corpus minimum and maximum take the end codes.
   */
  public long int8SaturatedDocumentValues(VectorSimilarity similarity, int truncateDimensions) {
    return variant(similarity, resolveDimensions(truncateDimensions)).saturatedDocumentValues();
  }

  /** As above, for an int8 search with {@code options} (given ranges or the snapshot's own). */
  public long int8SaturatedDocumentValues(DenseSearchOptions options) {
    return variant(options, resolveDimensions(options.truncateDimensions()))
        .saturatedDocumentValues();
  }

  private List<DenseSearchResult> searchAll(
      List<float[]> queries,
      IntFunction<String> field,
      DenseSearchOptions options,
      int k,
      Cancellation cancellation) {
    if (k < 0) {
      throw new InvalidInputException("top_k", "top_k must not be negative, got " + k);
    }
    int dims = resolveDimensions(options.truncateDimensions());
    PreparedQuery[] prepared = new PreparedQuery[queries.size()];
    for (int i = 0; i < prepared.length; i++) {
      prepared[i] = prepare(queries.get(i), field.apply(i), options.similarity(), dims);
    }
    if (options.approximate()) {
      List<DenseSearchResult> exact =
          searchAll(queries, field, options.exactScan(), k, cancellation);
      List<DenseSearchResult> results = new ArrayList<>(prepared.length);
      for (int i = 0; i < prepared.length; i++) {
        results.add(approximate(prepared[i], exact.get(i), options, dims, k, cancellation));
      }
      return results;
    }
    Variant variant = variant(options, dims);
    long bytesPerVector = DenseSearchOptions.bytesPerVector(options.quantization(), dims);
    long storedBytes = storedBytes(options, dims);
    boolean floatRescore = options.rescore() && options.quantization() != Quantization.NONE;
    int depth = floatRescore ? Math.max(k, options.rescoreDepth()) : k;
    int chunk =
        (int) Math.max(1, Math.min(prepared.length, BATCH_HEAP_ENTRIES / Math.max(1, depth)));
    List<DenseSearchResult> results = new ArrayList<>(prepared.length);
    for (int from = 0; from < prepared.length; from += chunk) {
      PreparedQuery[] part =
          Arrays.copyOfRange(prepared, from, Math.min(prepared.length, from + chunk));
      ScanQueries scan = ScanQueries.of(part, options.quantization(), variant);
      // Each run of stored vectors is read once for every query of the chunk, and its scores are
      // offered to the queries' shortlists while they are still in cache.
      List<List<OrdinalHit>> shortlists = scanTopK(scan, dims, depth, cancellation);
      DenseSearchResult[] done = new DenseSearchResult[part.length];
      IntStream each = IntStream.range(0, part.length);
      (part.length > 1 ? each.parallel() : each)
          .forEach(
              i -> {
                List<OrdinalHit> hits = shortlists.get(i);
                // Re-ordered in float even when the shortlist is exactly k long (k = depth = 100).
                if (floatRescore) {
                  hits = floatRescore(part[i], hits, variant, dims, k);
                }
                done[i] =
                    new DenseSearchResult(
                        hits,
                        scan.clipped()[i],
                        scan.saturated()[i],
                        dims,
                        bytesPerVector,
                        storedBytes,
                        Double.NaN);
              });
      results.addAll(Arrays.asList(done));
    }
    return results;
  }

  /** The shortlist re-scored in float, best {@code k} first. */
  private List<OrdinalHit> floatRescore(
      PreparedQuery q, List<OrdinalHit> shortlist, Variant variant, int dims, int k) {
    StoredVectors docs = variant.floats();
    float[] row = new float[dims];
    List<OrdinalHit> hits = new ArrayList<>(shortlist.size());
    for (OrdinalHit hit : shortlist) {
      docs.row(hit.ordinal(), row);
      hits.add(TopK.hit(hit.ordinal(), DotProduct.dot(q.floats(), row, 0, dims)));
    }
    return topK.sortAndCut(hits, k);
  }

  /**
   * HNSW candidates over the first stage's vectors, scored as the exact scan of the variant scores
   * them; recall measured against {@code exact}, the exact scan's result of the same variant (NaN
   * when {@code exact} is null).
   */
  private DenseSearchResult approximate(
      PreparedQuery q,
      DenseSearchResult exact,
      DenseSearchOptions options,
      int dims,
      int k,
      Cancellation cancellation) {
    long bytesPerVector = DenseSearchOptions.bytesPerVector(options.quantization(), dims);
    long storedBytes = storedBytes(options, dims);
    if (size == 0 || k == 0) {
      return new DenseSearchResult(
          List.of(), 0, 0, dims, bytesPerVector, storedBytes, exact == null ? Double.NaN : 1.0);
    }
    Variant variant = variant(options, dims);
    cancellation.throwIfCancelled();
    int depth = Math.max(k, options.rescoreDepth());
    int clipped = 0;
    int saturated = 0;
    List<OrdinalHit> proposed = new ArrayList<>(depth);
    switch (options.quantization()) {
      case NONE -> {
        for (int ordinal : variant.graph().search(q.floats(), depth)) {
          proposed.add(new OrdinalHit(ordinal, 0));
        }
      }
      case INT8 -> {
        Int8Quantizer.QueryCodes codes = variant.quantizer().encodeQuery(q.floats());
        clipped = codes.clipped();
        saturated = codes.saturated();
        Int8Rows.Query rowQuery = codes.forRows();
        Int8Rows docs = variant.int8Rows();
        for (int ordinal : variant.int8Graph().search(q.floats(), depth)) {
          proposed.add(TopK.hit(ordinal, docs.dot(rowQuery, ordinal)));
        }
      }
      case BINARY -> {
        long[] bits = BinaryQuantizer.encode(q.floats(), dims);
        long[] docs = variant.bits();
        int words = BinaryQuantizer.words(dims);
        for (int ordinal : variant.binaryGraph().search(BinaryQuantizer.signs(q.floats()), depth)) {
          proposed.add(
              TopK.hit(ordinal, BinaryQuantizer.similarity(bits, docs, ordinal * words, dims)));
        }
      }
    }
    List<OrdinalHit> hits =
        options.quantization() == Quantization.NONE || options.rescore()
            ? floatRescore(q, proposed, variant, dims, k)
            : topK.sortAndCut(proposed, k);
    if (exact == null) {
      return new DenseSearchResult(
          hits, clipped, saturated, dims, bytesPerVector, storedBytes, Double.NaN);
    }
    Set<Integer> truth = new HashSet<>();
    exact.hits().forEach(hit -> truth.add(hit.ordinal()));
    long found = hits.stream().filter(hit -> truth.contains(hit.ordinal())).count();
    double recall = truth.isEmpty() ? 1.0 : (double) found / truth.size();
    return new DenseSearchResult(
        hits, clipped, saturated, dims, bytesPerVector, storedBytes, recall, exact.hits());
  }

  /** Documents per cache-sized run of a block: as many as {@link #CACHE_BLOCK_BYTES} hold. */
  private static int runRows(Quantization quantization, int dims) {
    long bytesPerDoc = quantization == Quantization.NONE ? 4L * dims : dims;
    return (int) Math.max(1, CACHE_BLOCK_BYTES / Math.max(1, bytesPerDoc));
  }

  /**
   * Each query's best {@code depth} hits in one parallel pass: as many tasks as the common pool has
   * threads take blocks of {@link #SCAN_BLOCK} documents in turn; each cache-sized run of a block
   * is scored for every query into a buffer of the task's own and offered, while its scores are
   * still in cache, to the task's bounded heap of each query ({@link TopK.Best}); the tasks' heaps
   * are merged query by query. One heap per thread and query, not per block: a heap starts empty
   * and nearly every score offered to it is kept until it fills, so fewer heaps is less work for
   * deep shortlists. The same hits as scoring every document and selecting from all the scores,
   * without an array of a score per query and document or a second pass over it.
   */
  private List<List<OrdinalHit>> scanTopK(
      ScanQueries queries, int dims, int depth, Cancellation cancellation) {
    int count = queries.queries().length;
    int blocks = (size + SCAN_BLOCK - 1) / SCAN_BLOCK;
    int run = runRows(queries.quantization(), dims);
    int tasks = Math.max(1, Math.min(blocks, ForkJoinPool.getCommonPoolParallelism() + 1));
    AtomicInteger nextBlock = new AtomicInteger();
    IntStream stream = IntStream.range(0, tasks);
    TopK.Best[] merged =
        (tasks > 1 ? stream.parallel() : stream)
            .mapToObj(
                task -> {
                  TopK.Best[] heaps = new TopK.Best[count];
                  for (int q = 0; q < count; q++) {
                    heaps[q] = topK.best(depth);
                  }
                  float[] buffer = queries.runBuffer(run, dims);
                  float[][] scores = new float[count][run];
                  for (int b = nextBlock.getAndIncrement();
                      b < blocks;
                      b = nextBlock.getAndIncrement()) {
                    cancellation.throwIfCancelled();
                    int end = Math.min(size, (b + 1) * SCAN_BLOCK);
                    for (int from = b * SCAN_BLOCK; from < end; from += run) {
                      int to = Math.min(end, from + run);
                      queries.score(scores, from, to, dims, buffer);
                      for (int q = 0; q < count; q++) {
                        heaps[q].offerBlock(scores[q], to - from, from);
                      }
                    }
                  }
                  return heaps;
                })
            .reduce(
                (a, b) -> {
                  for (int q = 0; q < count; q++) {
                    a[q].merge(b[q]);
                  }
                  return a;
                })
            .orElseThrow();
    List<List<OrdinalHit>> hits = new ArrayList<>(count);
    for (TopK.Best heap : merged) {
      hits.add(heap.hits());
    }
    return hits;
  }

  /**
   * The queries of one scan in the form its kernel reads, and the stored side it reads them
   * against.
   */
  private record ScanQueries(
      Quantization quantization,
      PreparedQuery[] queries,
      Int8Rows.Query[] int8,
      long[][] bits,
      int[] clipped,
      int[] saturated,
      StoredVectors floatDocs,
      Int8Rows int8Docs,
      long[] bitDocs) {
    static ScanQueries of(PreparedQuery[] queries, Quantization quantization, Variant variant) {
      int[] clipped = new int[queries.length];
      int[] saturated = new int[queries.length];
      return switch (quantization) {
        case NONE ->
            new ScanQueries(
                quantization,
                queries,
                null,
                null,
                clipped,
                saturated,
                variant.floats(),
                null,
                null);
        case INT8 -> {
          Int8Rows.Query[] int8 = new Int8Rows.Query[queries.length];
          Int8Quantizer quantizer = variant.quantizer();
          for (int i = 0; i < queries.length; i++) {
            Int8Quantizer.QueryCodes codes = quantizer.encodeQuery(queries[i].floats());
            int8[i] = codes.forRows();
            clipped[i] = codes.clipped();
            saturated[i] = codes.saturated();
          }
          yield new ScanQueries(
              quantization,
              queries,
              int8,
              null,
              clipped,
              saturated,
              null,
              variant.int8Rows(),
              null);
        }
        case BINARY -> {
          long[][] bits = new long[queries.length][];
          for (int i = 0; i < queries.length; i++) {
            bits[i] = BinaryQuantizer.encode(queries[i].floats(), queries[i].floats().length);
          }
          yield new ScanQueries(
              quantization, queries, null, bits, clipped, saturated, null, null, variant.bits());
        }
      };
    }

    /**
     * What {@link #score} reads mapped float rows into: {@code rows} rows (null when the scan reads
     * codes or a heap array in place).
     */
    float[] runBuffer(int rows, int dims) {
      return quantization == Quantization.NONE && floatDocs.isMapped()
          ? new float[rows * dims]
          : null;
    }

    /** Scores documents [from, to) for every query into {@code scores[query][document − from]}. */
    void score(float[][] scores, int from, int to, int dims, float[] buffer) {
      switch (quantization) {
        case NONE -> {
          StoredVectors.Run rows = floatDocs.rows(from, to - from, buffer);
          float[] docs = rows.floats();
          // docs[base + d * dims] is the first value of document d.
          int base = rows.offset() - from * dims;
          float[] four = new float[4];
          int q = 0;
          for (; q + 4 <= queries.length; q += 4) {
            float[] q0 = queries[q].floats();
            float[] q1 = queries[q + 1].floats();
            float[] q2 = queries[q + 2].floats();
            float[] q3 = queries[q + 3].floats();
            for (int d = from; d < to; d++) {
              DotProduct.dot4(q0, q1, q2, q3, docs, base + d * dims, dims, four, 0);
              scores[q][d - from] = four[0];
              scores[q + 1][d - from] = four[1];
              scores[q + 2][d - from] = four[2];
              scores[q + 3][d - from] = four[3];
            }
          }
          for (; q < queries.length; q++) {
            float[] query = queries[q].floats();
            float[] out = scores[q];
            int d = from;
            for (; d + 4 <= to; d += 4) {
              DotProduct.dotFour(query, docs, base + d * dims, dims, out, d - from);
            }
            for (; d < to; d++) {
              out[d - from] = DotProduct.dot(query, docs, base + d * dims, dims);
            }
          }
        }
        case INT8 -> {
          Int8Rows docs = int8Docs;
          // The run's quarters as four sequential streams of rows read in turn: four rows' cache
          // misses are outstanding together. With one stream a thread kept too few in flight on 16
          // cores, and the int8 scan drew less memory bandwidth than the float scan (BENCHMARKS.md,
          // "The int8 scan in four streams"). Each score still lands in its own document's slot.
          int quarter = (to - from) / 4;
          for (int q = 0; q < queries.length; q++) {
            Int8Rows.Query query = int8[q];
            float[] out = scores[q];
            for (int i = 0; i < quarter; i++) {
              int d = from + i;
              out[i] = docs.dot(query, d);
              out[i + quarter] = docs.dot(query, d + quarter);
              out[i + 2 * quarter] = docs.dot(query, d + 2 * quarter);
              out[i + 3 * quarter] = docs.dot(query, d + 3 * quarter);
            }
            for (int d = from + 4 * quarter; d < to; d++) {
              out[d - from] = docs.dot(query, d);
            }
          }
        }
        case BINARY -> {
          long[] docs = bitDocs;
          int words = BinaryQuantizer.words(dims);
          for (int q = 0; q < queries.length; q++) {
            long[] query = bits[q];
            float[] out = scores[q];
            for (int d = from; d < to; d++) {
              out[d - from] = BinaryQuantizer.similarity(query, docs, d * words, dims);
            }
          }
        }
      }
    }
  }

  /** A query truncated and, for cosine, normalised: the float variant's view of it. */
  private record PreparedQuery(float[] floats) {}

  private PreparedQuery prepare(
      float[] query, String field, VectorSimilarity similarity, int dims) {
    if (query == null) {
      throw new InvalidInputException(field, "a dense query vector is required");
    }
    if (query.length != dimension && query.length != dims) {
      throw new InvalidInputException(
          field,
          "query vector has "
              + query.length
              + " dimensions; the collection stores "
              + dimension
              + (dims != dimension ? " (or give the " + dims + " kept by truncation)" : ""));
    }
    for (int i = 0; i < dims; i++) {
      if (!Float.isFinite(query[i])) {
        throw new InvalidInputException(
            field, "query vector holds a NaN or infinite value at dimension " + i);
      }
    }
    float[] q = Arrays.copyOf(query, dims);
    if (similarity == VectorSimilarity.COSINE) {
      normalize(q, 0, dims);
    }
    return new PreparedQuery(q);
  }

  private int resolveDimensions(int truncate) {
    if (truncate < 0 || truncate > dimension) {
      throw new InvalidInputException(
          "dense.truncate_dimensions",
          "truncate_dimensions must be within 0.." + dimension + ", got " + truncate);
    }
    return truncate == 0 ? dimension : truncate;
  }

  private int[] distinct(int[] ordinals) {
    Set<Integer> seen = new HashSet<>();
    int[] out = new int[ordinals.length];
    int n = 0;
    for (int ordinal : ordinals) {
      if (ordinal < 0 || ordinal >= size) {
        throw new IllegalArgumentException(
            "ordinal " + ordinal + " is not within 0.." + (size - 1));
      }
      if (seen.add(ordinal)) {
        out[n++] = ordinal;
      }
    }
    return Arrays.copyOf(out, n);
  }

  private Variant variant(VectorSimilarity similarity, int dims) {
    return variants.computeIfAbsent(
        new VariantKey(similarity, dims, null), key -> new Variant(key, null));
  }

  /**
   * The variant a search with {@code options} runs on: the (similarity, truncation) variant, or for
   * an int8 search given ranges of its own a variant quantizing with them, which shares the float
   * vectors and graphs of the first. One such variant is kept per (similarity, truncation): a
   * search with other ranges replaces it, so clients cannot grow the cache.
   */
  private Variant variant(DenseSearchOptions options, int dims) {
    Variant base = variant(options.similarity(), dims);
    Int8Calibration given = options.int8Calibration();
    if (given == null || options.quantization() != Quantization.INT8) {
      return base;
    }
    if (given.dimensions() != dims) {
      throw new InvalidInputException(
          "dense.int8_calibration",
          "int8_calibration needs one range per dimension kept ("
              + dims
              + "), got "
              + given.dimensions());
    }
    VariantKey key = new VariantKey(options.similarity(), dims, given);
    variants
        .keySet()
        .removeIf(
            other ->
                other.calibration() != null
                    && other.similarity() == key.similarity()
                    && other.dims() == dims
                    && !other.equals(key));
    return variants.computeIfAbsent(key, k -> new Variant(k, base));
  }

  /** Normalises {@code values[offset, offset + length)} in FP32; a zero vector stays zero. */
  static void normalize(float[] values, int offset, int length) {
    double sum = 0;
    for (int i = offset; i < offset + length; i++) {
      sum += (double) values[i] * values[i];
    }
    float norm = (float) Math.sqrt(sum);
    if (norm > 0) {
      for (int i = offset; i < offset + length; i++) {
        values[i] /= norm;
      }
    }
  }

  /** A (similarity, truncation) variant; {@code calibration} non-null for given int8 ranges. */
  private record VariantKey(VectorSimilarity similarity, int dims, Int8Calibration calibration) {}

  /** What one (similarity, truncation) needs, each part built on first use and then kept. */
  private final class Variant {
    private final VectorSimilarity similarity;
    private final int dims;
    private final Variant base;
    private final Int8Calibration calibration;
    private StoredVectors floats;
    private Int8Quantizer quantizer;
    private Int8Rows int8Rows;
    private long[] bits;
    private HnswGraph graph;
    private HnswGraph int8Graph;
    private HnswGraph binaryGraph;
    private long saturatedDocumentValues = -1;

    /**
     * @param base the variant whose float vectors, sign bits and graphs this one shares (one with
     *     given int8 ranges), or null
     */
    Variant(VariantKey key, Variant base) {
      this.similarity = key.similarity();
      this.dims = key.dims();
      this.calibration = key.calibration();
      this.base = base;
    }

    /** The vectors the float variant scores: truncated, and for cosine normalised. */
    synchronized StoredVectors floats() {
      if (base != null) {
        return base.floats();
      }
      if (floats == null) {
        if (similarity == VectorSimilarity.DOT && dims == dimension) {
          floats = vectors;
        } else {
          float[] out = new float[Math.multiplyExact(size, dims)];
          float[] row = new float[dimension];
          for (int d = 0; d < size; d++) {
            vectors.row(d, row);
            System.arraycopy(row, 0, out, d * dims, dims);
            if (similarity == VectorSimilarity.COSINE) {
              normalize(out, d * dims, dims);
            }
          }
          floats = StoredVectors.of(out, dims);
        }
      }
      return floats;
    }

    /**
     * The float variant's vectors in heap chunks of {@value #SCAN_BLOCK} rows, one at a time: how
     * codes are built from mapped vectors without a heap copy of them all.
     */
    private void forEachChunk(java.util.function.ObjIntConsumer<float[]> chunk) {
      StoredVectors docs = floats();
      for (int from = 0; from < size; from += SCAN_BLOCK) {
        chunk.accept(docs.copyRows(from, Math.min(SCAN_BLOCK, size - from)), from);
      }
    }

    synchronized Int8Quantizer quantizer() {
      if (quantizer == null) {
        quantizer =
            calibration != null
                ? Int8Quantizer.of(calibration)
                : size == 0
                    ? Int8Quantizer.of(new Int8Calibration(new float[dims], new float[dims]))
                    : calibrate();
      }
      return quantizer;
    }

    private Int8Quantizer calibrate() {
      Int8Calibration[] span = new Int8Calibration[1];
      forEachChunk(
          (chunk, from) -> {
            Int8Calibration part = Int8Calibration.of(chunk, dims);
            span[0] = span[0] == null ? part : span[0].span(part);
          });
      return Int8Quantizer.of(span[0]);
    }

    synchronized Int8Rows int8Rows() {
      if (int8Rows == null) {
        Int8Quantizer quantizer = quantizer();
        Int8Rows rows = Int8Rows.allocate(size, dims);
        forEachChunk((chunk, from) -> rows.set(from, quantizer.encode(chunk)));
        int8Rows = rows;
      }
      return int8Rows;
    }

    synchronized long[] bits() {
      if (base != null) {
        return base.bits();
      }
      if (bits == null) {
        int words = BinaryQuantizer.words(dims);
        long[] out = new long[Math.multiplyExact(size, words)];
        forEachChunk(
            (chunk, from) -> {
              long[] part = BinaryQuantizer.encode(chunk, dims);
              System.arraycopy(part, 0, out, from * words, part.length);
            });
        bits = out;
      }
      return bits;
    }

    synchronized HnswGraph graph() {
      if (base != null) {
        return base.graph();
      }
      if (graph == null) {
        graph = new HnswGraph(floats(), similarity);
      }
      return graph;
    }

    /**
     * The HNSW graph over the vectors as int8 ({@link HnswGraph#ofInt8}: one scale for all
     * dimensions, the float geometry); it proposes candidates, which the int8 codes then score.
     */
    synchronized HnswGraph int8Graph() {
      if (base != null) {
        return base.int8Graph();
      }
      if (int8Graph == null) {
        int8Graph = HnswGraph.ofInt8(floats());
      }
      return int8Graph;
    }

    /** The HNSW graph over the sign bits, as ±1 bytes. */
    synchronized HnswGraph binaryGraph() {
      if (base != null) {
        return base.binaryGraph();
      }
      if (binaryGraph == null) {
        byte[] signs = new byte[Math.multiplyExact(size, dims)];
        forEachChunk(
            (chunk, from) -> {
              byte[] part = BinaryQuantizer.signs(chunk);
              System.arraycopy(part, 0, signs, from * dims, part.length);
            });
        binaryGraph = HnswGraph.ofBytes(signs, dims);
      }
      return binaryGraph;
    }

    synchronized long saturatedDocumentValues() {
      if (saturatedDocumentValues < 0) {
        saturatedDocumentValues = int8Rows().saturated();
      }
      return saturatedDocumentValues;
    }
  }
}
