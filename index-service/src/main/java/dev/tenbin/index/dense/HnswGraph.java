package dev.tenbin.index.dense;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnByteVectorField;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnByteVectorQuery;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Lucene's HNSW graph over prepared (truncated, for cosine normalised) vectors, in memory, one
 * segment so that Lucene doc ids are ordinals. Over floats, cosine uses DOT_PRODUCT on unit vectors
 * and dot uses MAXIMUM_INNER_PRODUCT. {@link #ofInt8} holds the same vectors as int8 with one scale
 * for every dimension (MAXIMUM_INNER_PRODUCT on the bytes: the dot product of the floats up to
 * rounding, so the graph has the float graph's geometry in a quarter of the bytes). {@link
 * #ofBytes} takes byte vectors as they are (sign bits as ±1 bytes: 2 · Hamming similarity − d). The
 * graph only proposes candidates: callers score them as the exact scan would.
 */
final class HnswGraph implements AutoCloseable {
  private static final String FIELD = "v";
  private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
  private final DirectoryReader reader;
  private final IndexSearcher searcher;

  /** For a graph {@link #ofInt8}: the factor a float is multiplied by before rounding; else 0. */
  private final float int8Scale;

  /** A graph over stored vectors (Lucene copies each into its in-memory index). */
  HnswGraph(StoredVectors vectors, VectorSimilarity similarity) {
    this(
        vectors.size(),
        d ->
            new KnnFloatVectorField(
                FIELD,
                vectors.copyRows(d, 1),
                similarity == VectorSimilarity.COSINE
                    ? VectorSimilarityFunction.DOT_PRODUCT
                    : VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT),
        0);
  }

  /**
   * A graph over stored vectors as int8 with one scale for all dimensions: each value times {@code
   * 127 / (the largest |value|)}, rounded. Unlike the int8 scan's codes (one affine map per
   * dimension, to keep each dimension's detail), one scale keeps the geometry: the dot product of
   * two code vectors is that of the floats times the square of the scale, up to rounding. A graph
   * over the per-dimension codes, linked by their inner product, stopped improving with the beam at
   * a million clustered vectors (0.82 of the true top 10 at beams 1,280 and 2,560 alike).
   */
  static HnswGraph ofInt8(StoredVectors vectors) {
    float largest = 0;
    for (int from = 0; from < vectors.size(); from += 4096) {
      for (float value : vectors.copyRows(from, Math.min(4096, vectors.size() - from))) {
        largest = Math.max(largest, Math.abs(value));
      }
    }
    float scale = largest > 0 ? 127 / largest : 1;
    return new HnswGraph(
        vectors.size(),
        d ->
            new KnnByteVectorField(
                FIELD,
                int8(vectors.copyRows(d, 1), scale),
                VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT),
        scale);
  }

  private static byte[] int8(float[] values, float scale) {
    byte[] codes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      codes[i] = (byte) Math.max(-127, Math.min(127, Math.round(values[i] * scale)));
    }
    return codes;
  }

  /** A graph over row-major byte vectors of {@code dims} values each. */
  static HnswGraph ofBytes(byte[] vectors, int dims) {
    return new HnswGraph(
        vectors.length / dims,
        d ->
            new KnnByteVectorField(
                FIELD,
                Arrays.copyOfRange(vectors, d * dims, (d + 1) * dims),
                VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT),
        0);
  }

  /**
   * Builds the graph in one segment where Lucene allows it (up to its per-thread buffer of 2 GB,
   * about a million 384-dimensional floats): documents are flushed only at the end, so the graph is
   * built once. With a buffer of 256 MB, a million vectors made six segments, each with its own
   * graph, and the final merge into one segment inserted most of the vectors a second time.
   */
  private HnswGraph(int n, IntFunction<IndexableField> field, float int8Scale) {
    this.int8Scale = int8Scale;
    IndexWriterConfig config =
        new IndexWriterConfig()
            .setMaxBufferedDocs(Math.max(2, n + 1))
            .setRAMBufferSizeMB(IndexWriterConfig.DISABLE_AUTO_FLUSH)
            .setRAMPerThreadHardLimitMB(2047);
    try (IndexWriter writer = new IndexWriter(directory, config)) {
      for (int d = 0; d < n; d++) {
        Document doc = new Document();
        doc.add(field.apply(d));
        writer.addDocument(doc);
      }
      writer.forceMerge(1);
      writer.commit();
      reader = DirectoryReader.open(directory);
      searcher = new IndexSearcher(reader);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build the HNSW graph", e);
    }
  }

  /**
   * Ordinals of the approximate top {@code k} (a graph {@link #ofInt8} quantizes the query with its
   * scale; values beyond the corpus's largest are clipped).
   */
  int[] search(float[] query, int k) {
    return int8Scale > 0
        ? search(new KnnByteVectorQuery(FIELD, int8(query, int8Scale), k), k)
        : search(new KnnFloatVectorQuery(FIELD, query, k), k);
  }

  /** Ordinals of the approximate top {@code k} of a graph {@link #ofBytes over bytes}. */
  int[] search(byte[] query, int k) {
    return search(new KnnByteVectorQuery(FIELD, query, k), k);
  }

  private int[] search(org.apache.lucene.search.Query query, int k) {
    try {
      TopDocs top = searcher.search(query, k);
      List<Integer> ordinals = new ArrayList<>();
      for (ScoreDoc doc : top.scoreDocs) {
        ordinals.add(doc.doc);
      }
      return ordinals.stream().mapToInt(Integer::intValue).toArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
