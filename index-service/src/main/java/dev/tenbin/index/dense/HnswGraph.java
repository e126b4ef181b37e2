package dev.tenbin.index.dense;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Lucene's HNSW graph over prepared (truncated, for cosine normalised) vectors, in memory, one
 * segment so that Lucene doc ids are ordinals. Cosine uses DOT_PRODUCT on unit vectors, dot uses
 * MAXIMUM_INNER_PRODUCT. The graph only proposes candidates: callers re-score them exactly.
 */
final class HnswGraph implements AutoCloseable {
  private static final String FIELD = "v";
  private final ByteBuffersDirectory directory = new ByteBuffersDirectory();
  private final DirectoryReader reader;
  private final IndexSearcher searcher;

  HnswGraph(float[] vectors, int dims, VectorSimilarity similarity) {
    VectorSimilarityFunction function =
        similarity == VectorSimilarity.COSINE
            ? VectorSimilarityFunction.DOT_PRODUCT
            : VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT;
    try (IndexWriter writer =
        new IndexWriter(directory, new IndexWriterConfig().setRAMBufferSizeMB(256))) {
      int n = vectors.length / dims;
      for (int d = 0; d < n; d++) {
        float[] row = Arrays.copyOfRange(vectors, d * dims, (d + 1) * dims);
        Document doc = new Document();
        doc.add(new KnnFloatVectorField(FIELD, row, function));
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
    try {
      TopDocs top = searcher.search(new KnnFloatVectorQuery(FIELD, query, k), k);
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
