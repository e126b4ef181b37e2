package dev.tenbin.index.lexical;

import dev.tenbin.core.Cancellation;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * A Lucene BM25 index of one collection. Title and text go into one analysed field, as Anserini's
 * BEIR "flat" regressions index them. Documents keep their insertion order (a log-doc merge
 * policy merges only adjacent segments), so a Lucene doc id is also the document's ordinal in the
 * collection.
 *
 * <p>Tie policy: hits are ordered by score descending, then by document id ascending (string
 * order), via a sort on the id's doc values.
 */
public final class Bm25Index implements Closeable {
  static final String ID_FIELD = "id";
  static final String CONTENTS_FIELD = "contents";
  private static final Sort SCORE_THEN_ID =
      new Sort(SortField.FIELD_SCORE, new SortField(ID_FIELD, SortField.Type.STRING));

  private final Directory directory;
  private final Analyzer analyzer;
  private final BM25Similarity similarity;
  private final IndexWriter writer;
  private volatile DirectoryReader reader;

  private Bm25Index(Directory directory, Analyzer analyzer, Bm25Parameters parameters)
      throws IOException {
    this.directory = directory;
    this.analyzer = analyzer;
    this.similarity = new BM25Similarity(parameters.k1(), parameters.b());
    IndexWriterConfig config =
        new IndexWriterConfig(analyzer)
            .setSimilarity(similarity)
            .setMergePolicy(new LogDocMergePolicy())
            .setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND)
            .setRAMBufferSizeMB(64)
            // Only explicit commits publish documents: an unfinished batch never survives.
            .setCommitOnClose(false);
    this.writer = new IndexWriter(directory, config);
    this.writer.commit();
    this.reader = DirectoryReader.open(directory);
  }

  /** Opens (or creates) the index in {@code dir}; the last committed state is what is visible. */
  public static Bm25Index open(Path dir, Analyzer analyzer, Bm25Parameters parameters) {
    try {
      return new Bm25Index(FSDirectory.open(dir), analyzer, parameters);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the BM25 index in " + dir, e);
    }
  }

  /** Adds documents; they become visible (and durable) with {@link #commit()}. */
  public void add(List<LexicalDocument> documents) {
    try {
      for (LexicalDocument doc : documents) {
        Document lucene = new Document();
        lucene.add(new StringField(ID_FIELD, doc.id(), Field.Store.NO));
        lucene.add(new StoredField(ID_FIELD, doc.id()));
        lucene.add(new SortedDocValuesField(ID_FIELD, new BytesRef(doc.id())));
        lucene.add(new TextField(CONTENTS_FIELD, doc.contents(), Field.Store.NO));
        writer.addDocument(lucene);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Makes everything added so far durable and visible, atomically. */
  public void commit() {
    try {
      writer.commit();
      DirectoryReader refreshed = DirectoryReader.openIfChanged(reader);
      if (refreshed != null) {
        DirectoryReader old = reader;
        reader = refreshed;
        old.decRef();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Committed documents. */
  public int size() {
    return reader.numDocs();
  }

  /** Document ids in ordinal (insertion) order. */
  public List<String> idsInOrder() {
    DirectoryReader current = acquire();
    try {
      StoredFields stored = current.storedFields();
      List<String> ids = new ArrayList<>(current.maxDoc());
      for (int doc = 0; doc < current.maxDoc(); doc++) {
        ids.add(stored.document(doc).get(ID_FIELD));
      }
      return ids;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  /** Top {@code k} hits for a query text, ties by id ascending. */
  public List<LexicalHit> search(String queryText, int k, Cancellation cancellation) {
    cancellation.throwIfCancelled();
    Query query = BagOfWordsQuery.build(analyzer, CONTENTS_FIELD, queryText);
    if (query == null) {
      return List.of();
    }
    DirectoryReader current = acquire();
    try {
      IndexSearcher searcher = new IndexSearcher(current);
      searcher.setSimilarity(similarity);
      TopFieldDocs top = searcher.search(query, k, SCORE_THEN_ID, true);
      StoredFields stored = searcher.storedFields();
      List<LexicalHit> hits = new ArrayList<>(top.scoreDocs.length);
      for (ScoreDoc scoreDoc : top.scoreDocs) {
        FieldDoc fieldDoc = (FieldDoc) scoreDoc;
        String id = stored.document(fieldDoc.doc).get(ID_FIELD);
        hits.add(new LexicalHit(fieldDoc.doc, id, fieldDoc.score));
      }
      return hits;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  /** BM25 scores of given ordinals for a query (0 for documents matching no term). */
  public float[] score(String queryText, int[] ordinals, Cancellation cancellation) {
    cancellation.throwIfCancelled();
    float[] scores = new float[ordinals.length];
    Query query = BagOfWordsQuery.build(analyzer, CONTENTS_FIELD, queryText);
    if (query == null) {
      return scores;
    }
    DirectoryReader current = acquire();
    try {
      IndexSearcher searcher = new IndexSearcher(current);
      searcher.setSimilarity(similarity);
      TopFieldDocs all = searcher.search(query, Math.max(1, current.maxDoc()), SCORE_THEN_ID, true);
      float[] byOrdinal = new float[current.maxDoc()];
      for (ScoreDoc scoreDoc : all.scoreDocs) {
        byOrdinal[scoreDoc.doc] = scoreDoc.score;
      }
      for (int i = 0; i < ordinals.length; i++) {
        scores[i] = byOrdinal[ordinals[i]];
      }
      return scores;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  public long bytesOnDisk() {
    try {
      long total = 0;
      for (String file : directory.listAll()) {
        total += directory.fileLength(file);
      }
      return total;
    } catch (IOException e) {
      return -1;
    }
  }

  private DirectoryReader acquire() {
    while (true) {
      DirectoryReader current = reader;
      if (current.tryIncRef()) {
        return current;
      }
    }
  }

  private static void release(DirectoryReader current) {
    try {
      current.decRef();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      reader.decRef();
      writer.close();
      directory.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
