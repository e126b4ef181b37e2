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
 * and dot uses MAXIMUM_INNER_PRODUCT. Over bytes ({@link #ofBytes}: int8 codes, or sign bits as ±1
 * bytes) it uses MAXIMUM_INNER_PRODUCT, a monotone function of the int dot product of the bytes:
 * for int8 codes that is the int8 scan's score, for ±1 signs it is 2 · (Hamming similarity) − d, so
 * the graph is navigated by the quantized variant's own ranking. The graph only proposes
 * candidates: callers score them as the exact scan would.
 */
final class HnswGraph implements AutoCloseable {
  private static final String FIELD = "v";
  private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
  private final DirectoryReader reader;
  private final IndexSearcher searcher;

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
                    : VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT));
  }

  /** A graph over row-major byte vectors of {@code dims} values each. */
  static HnswGraph ofBytes(byte[] vectors, int dims) {
    return new HnswGraph(
        vectors.length / dims,
        d ->
            new KnnByteVectorField(
                FIELD,
                Arrays.copyOfRange(vectors, d * dims, (d + 1) * dims),
                VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT));
  }

  /**
   * Builds the graph in one segment where Lucene allows it (up to its per-thread buffer of 2 GB,
   * about a million 384-dimensional floats): documents are flushed only at the end, so the graph is
   * built once. With a buffer of 256 MB, a million vectors made six segments, each with its own
   * graph, and the final merge into one segment inserted most of the vectors a second time.
   */
  private HnswGraph(int n, IntFunction<IndexableField> field) {
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

  /** Ordinals of the approximate top {@code k}. */
  int[] search(float[] query, int k) {
    return search(new KnnFloatVectorQuery(FIELD, query, k), k);
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
