package dev.tenbin.index.dense;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Exact top-k over a snapshot of float vectors, by dot product or cosine, with a deterministic SIMD dot
 * product ({@link DotProduct}, {@code jdk.incubator.vector}) and a multi-threaded scan. Vectors may be truncated to their leading dimensions
 * (Matryoshka); for cosine the truncated vectors are re-normalised. Scores are FP32; ties are
 * ordered by document id ascending through {@code idOrder} (ordinal → position of its id in
 * sorted order).
 */
public final class ExactDenseSearcher {
  private final java.util.Map<String, float[]> prepared = new java.util.HashMap<>();
  private final int dimension;
  private final int size;
  private final int[] idOrder;
  private final float[] vectors;

  public ExactDenseSearcher(float[] vectors, int dimension, int[] idOrder) {
    this.vectors = vectors;
    this.dimension = dimension;
    this.size = vectors.length / dimension;
    this.idOrder = idOrder;
  }

  public int size() {
    return size;
  }

  /** Document vectors prepared for a similarity and truncation, computed once and kept. */
  private synchronized float[] prepared(VectorSimilarity similarity, int dims) {
    if (similarity == VectorSimilarity.DOT && dims == dimension) {
      return vectors;
    }
    return prepared.computeIfAbsent(
        similarity + "/" + dims,
        key -> {
          float[] out = new float[size * dims];
          for (int d = 0; d < size; d++) {
            System.arraycopy(vectors, d * dimension, out, d * dims, dims);
            if (similarity == VectorSimilarity.COSINE) {
              normalize(out, d * dims, dims);
            }
          }
          return out;
        });
  }

  private final java.util.Map<String, dev.tenbin.index.quantize.Int8Quantizer> int8Quantizers = new java.util.HashMap<>();
  private final java.util.Map<String, byte[][]> int8Codes = new java.util.HashMap<>();
  private final java.util.Map<String, long[]> binaryCodes = new java.util.HashMap<>();

  /** The int8 calibration of a similarity and truncation (derived from the stored vectors). */
  public synchronized dev.tenbin.index.quantize.Int8Quantizer int8(VectorSimilarity similarity, int dims) {
    String key = similarity + "/" + dims;
    return int8Quantizers.computeIfAbsent(key, x -> dev.tenbin.index.quantize.Int8Quantizer.calibrate(prepared(similarity, dims), dims));
  }

  /** One code array per document, so Lucene's SIMD integer dot product can read it directly. */
  private synchronized byte[][] int8Codes(VectorSimilarity similarity, int dims) {
    return int8Codes.computeIfAbsent(
        similarity + "/" + dims,
        key -> {
          byte[] flat = int8(similarity, dims).encode(prepared(similarity, dims));
          byte[][] rows = new byte[size][];
          for (int d = 0; d < size; d++) {
            rows[d] = Arrays.copyOfRange(flat, d * dims, (d + 1) * dims);
          }
          return rows;
        });
  }

  private synchronized long[] binaryCodes(VectorSimilarity similarity, int dims) {
    return binaryCodes.computeIfAbsent(
        similarity + "/" + dims, key -> dev.tenbin.index.quantize.BinaryQuantizer.encode(prepared(similarity, dims), dims));
  }

  /**
   * A search in any variant: float, int8 or binary scan of the (truncated, for cosine re-normalised)
   * vectors, optionally re-scoring the quantized top {@code rescoreDepth} with the float vectors.
   */
  public DenseSearchResult search(float[] query, DenseSearchOptions options, int k, Cancellation cancellation) {
    int dims = resolveDimensions(options.truncateDimensions());
    if (query.length != dimension && query.length != dims) {
      throw new InvalidInputException(
          "queries.dense", "query vector has " + query.length + " dimensions; expected " + dimension);
    }
    VectorSimilarity similarity = options.similarity();
    float[] q = Arrays.copyOf(query, dims);
    if (similarity == VectorSimilarity.COSINE) {
      normalize(q, 0, dims);
    }
    if (options.approximate()) {
      return approximate(query, q, options, dims, k, cancellation);
    }
    float[] scores = new float[size];
    int clipped = 0;
    switch (options.quantization()) {
      case NONE -> {
        float[] docs = prepared(similarity, dims);
        scan(cancellation, (from, to) -> {
          for (int d = from; d < to; d++) {
            scores[d] = DotProduct.dot(q, docs, d * dims, dims);
          }
        });
      }
      case INT8 -> {
        var quantizer = int8(similarity, dims);
        byte[][] codes = int8Codes(similarity, dims);
        var queryCodes = quantizer.encodeQuery(q);
        clipped = queryCodes.clipped();
        // Integer arithmetic: exact, so the SIMD reduction order cannot change a score.
        scan(cancellation, (from, to) -> {
          for (int d = from; d < to; d++) {
            scores[d] = org.apache.lucene.util.VectorUtil.dotProduct(queryCodes.codes(), codes[d]);
          }
        });
      }
      case BINARY -> {
        long[] codes = binaryCodes(similarity, dims);
        long[] queryBits = dev.tenbin.index.quantize.BinaryQuantizer.encode(q, dims);
        int words = queryBits.length;
        scan(cancellation, (from, to) -> {
          for (int d = from; d < to; d++) {
            scores[d] = dev.tenbin.index.quantize.BinaryQuantizer.similarity(queryBits, codes, d * words, dims);
          }
        });
      }
    }
    List<DenseHit> hits;
    if (options.rescore() && options.quantization() != Quantization.NONE) {
      List<DenseHit> shortlist = topK(scores, Math.max(k, options.rescoreDepth()));
      int[] ordinals = shortlist.stream().mapToInt(DenseHit::ordinal).toArray();
      hits = rescore(query, ordinals, similarity, options.truncateDimensions());
      hits = hits.size() > k ? new ArrayList<>(hits.subList(0, k)) : hits;
    } else {
      hits = topK(scores, k);
    }
    return new DenseSearchResult(hits, clipped, dims, DenseSearchOptions.bytesPerVector(options.quantization(), dims));
  }

  private final java.util.Map<String, HnswGraph> graphs = new java.util.HashMap<>();

  private synchronized HnswGraph graph(VectorSimilarity similarity, int dims) {
    return graphs.computeIfAbsent(similarity + "/" + dims, key -> new HnswGraph(prepared(similarity, dims), dims, similarity));
  }

  /** HNSW candidates re-scored exactly; recall measured against the exact float top-k. */
  private DenseSearchResult approximate(
      float[] query, float[] prepared, DenseSearchOptions options, int dims, int k, Cancellation cancellation) {
    int[] candidates = graph(options.similarity(), dims).search(prepared, Math.max(k, options.rescoreDepth()));
    List<DenseHit> hits = rescore(query, candidates, options.similarity(), options.truncateDimensions());
    hits = hits.size() > k ? new ArrayList<>(hits.subList(0, k)) : hits;
    List<DenseHit> exact =
        search(query, new DenseSearchOptions(options.similarity(), options.truncateDimensions(), Quantization.NONE, false, 100), k, cancellation)
            .hits();
    java.util.Set<Integer> truth = new java.util.HashSet<>();
    exact.forEach(hit -> truth.add(hit.ordinal()));
    long found = hits.stream().filter(hit -> truth.contains(hit.ordinal())).count();
    double recall = exact.isEmpty() ? 1.0 : (double) found / exact.size();
    return new DenseSearchResult(hits, 0, dims, DenseSearchOptions.bytesPerVector(Quantization.NONE, dims), recall);
  }

  private static final int SCAN_BLOCK = 4096;

  /** A block of documents [from, to) to score. */
  private interface Block {
    void score(int from, int to);
  }

  /**
   * Scores the corpus in blocks of 4,096 documents on the common fork-join pool. Each document's
   * score depends on nothing else, so results are identical whatever the number of threads.
   */
  private void scan(Cancellation cancellation, Block block) {
    int blocks = (size + SCAN_BLOCK - 1) / SCAN_BLOCK;
    java.util.stream.IntStream stream = java.util.stream.IntStream.range(0, blocks);
    (blocks > 1 ? stream.parallel() : stream)
        .forEach(
            b -> {
              cancellation.throwIfCancelled();
              block.score(b * SCAN_BLOCK, Math.min(size, (b + 1) * SCAN_BLOCK));
            });
  }

  private List<DenseHit> topK(float[] scores, int k) {
    List<DenseHit> hits = new ArrayList<>(k);
    for (int ordinal : dev.tenbin.index.rank.TopK.select(scores, null, k, idOrder)) {
      hits.add(new DenseHit(ordinal, scores[ordinal]));
    }
    return hits;
  }

  /** Exact float top-k (the base variant). */
  public List<DenseHit> search(
      float[] query, VectorSimilarity similarity, int truncateDimensions, int k, Cancellation cancellation) {
    return search(
            query, new DenseSearchOptions(similarity, truncateDimensions, Quantization.NONE, false, 100), k, cancellation)
        .hits();
  }

  /** Scores of given ordinals (a candidate set), in final order. */
  public List<DenseHit> rescore(float[] query, int[] ordinals, VectorSimilarity similarity, int truncateDimensions) {
    int dims = resolveDimensions(truncateDimensions);
    float[] q = Arrays.copyOf(query, dims);
    if (similarity == VectorSimilarity.COSINE) {
      normalize(q, 0, dims);
    }
    float[] docs = prepared(similarity, dims);
    List<DenseHit> hits = new ArrayList<>(ordinals.length);
    for (int ordinal : ordinals) {
      hits.add(new DenseHit(ordinal, DotProduct.dot(q, docs, ordinal * dims, dims)));
    }
    hits.sort((a, b) -> worseFirst(b, a));
    return hits;
  }

  private int resolveDimensions(int truncate) {
    if (truncate < 0 || truncate > dimension) {
      throw new InvalidInputException(
          "dense.truncate_dimensions", "truncate_dimensions must be within 0.." + dimension + ", got " + truncate);
    }
    return truncate == 0 ? dimension : truncate;
  }

  /** Negative when {@code a} ranks below {@code b}: lower score, or equal score and larger id. */
  private int worseFirst(DenseHit a, DenseHit b) {
    int byScore = Float.compare(a.score(), b.score());
    if (byScore != 0) {
      return byScore;
    }
    return Integer.compare(idOrder[b.ordinal()], idOrder[a.ordinal()]);
  }

  private static void normalize(float[] values, int offset, int length) {
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
}
