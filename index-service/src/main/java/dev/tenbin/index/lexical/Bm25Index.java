package dev.tenbin.index.lexical;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.index.rank.Hit;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * A Lucene BM25 index of one collection. Title and text go into one analysed field, as Anserini's
 * BEIR "flat" regressions index them. Documents keep their insertion order (a log-doc merge policy
 * merges only adjacent segments), so a Lucene doc id is also the document's ordinal in the
 * collection.
 *
 * <p>An index created by this version also stores each document's title and text (Lucene stored
 * fields, compressed as Lucene's default codec compresses them), written with the document in the
 * same commit; {@link #storesText()} says so, recorded in every commit's user data. Indexes created
 * before keep only ids and digests.
 *
 * <p>A large batch is indexed on several threads at once, each part of it as a segment of its own
 * that the index then appends in the batch's order ({@link BatchSegments}); a small one by the
 * index's writer on the caller's thread. Either way the index holds the same documents, terms and
 * norms in the same order.
 *
 * <p>Tie policy: hits are ordered by score descending, then by document id ascending (the bytes of
 * its UTF-8, as a sort on the id's doc values orders them; {@link ScoreThenIdTopK}).
 */
public final class Bm25Index implements Closeable {
  static final String ID_FIELD = "id";
  static final String CONTENTS_FIELD = "contents";

  /** Commit user data: the documents a commit holds, checked at open against what Lucene holds. */
  static final String DOCUMENTS_KEY = "tenbin.documents";

  /** SHA-256 of a document's content, stored so a re-sent document can be recognised. */
  static final String DIGEST_FIELD = "digest";

  /** Stored fields of the document's title and text (indexes that {@link #storesText()}). */
  static final String TITLE_FIELD = "title";

  static final String TEXT_FIELD = "text";

  /**
   * Commit user data: present (value {@value #STORED_TEXT_VALUE}) when the index stores title and
   * text.
   */
  static final String STORED_TEXT_KEY = "tenbin.stored_text";

  static final String STORED_TEXT_VALUE = "title,text";

  /**
   * The contents field as this version indexes it: which documents hold a term and how often, no
   * positions (BM25 reads nothing else, and Anserini's default index records the same). Lucene
   * keeps one choice per field for an index's life, so an index whose documents were written with
   * positions (by an older version) goes on recording them ({@link #countsOnly()}).
   */
  private static final FieldType COUNTED_CONTENTS = countedContents();

  private static FieldType countedContents() {
    FieldType type = new FieldType(TextField.TYPE_NOT_STORED);
    type.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
    type.freeze();
    return type;
  }

  private final Path path;
  private final Directory directory;

  /**
   * The folder as the writer sees it: a merge of the whole index reads it through the file channel
   * ({@link WriterDirectory}).
   */
  private final WriterDirectory writerDirectory;

  private final Analyzer analyzer;
  private final BM25Similarity similarity;
  private IndexWriter writer;
  private volatile DirectoryReader reader;
  private volatile boolean closed;
  private final boolean storesText;
  private final boolean countsOnly;
  private int added;

  private Bm25Index(
      Path path,
      Directory directory,
      Analyzer analyzer,
      Bm25Parameters parameters,
      boolean mustExist)
      throws IOException {
    this.path = path;
    this.directory = directory;
    this.writerDirectory = WriterDirectory.over(directory, path);
    this.analyzer = analyzer;
    this.similarity = new BM25Similarity(parameters.k1(), parameters.b());
    boolean created = !DirectoryReader.indexExists(directory);
    this.writer =
        new IndexWriter(
            writerDirectory,
            writerConfig()
                .setOpenMode(
                    mustExist
                        ? IndexWriterConfig.OpenMode.APPEND
                        : IndexWriterConfig.OpenMode.CREATE_OR_APPEND));
    try {
      if (created) {
        // A new index stores text from its first commit on; that fact travels in every commit.
        writer.setLiveCommitData(commitData(0, true).entrySet());
      }
      this.writer.commit();
      this.reader = DirectoryReader.open(directory);
      Map<String, String> userData = reader.getIndexCommit().getUserData();
      this.storesText = STORED_TEXT_VALUE.equals(userData.get(STORED_TEXT_KEY));
      org.apache.lucene.index.FieldInfo contents =
          org.apache.lucene.index.FieldInfos.getMergedFieldInfos(reader).fieldInfo(CONTENTS_FIELD);
      this.countsOnly =
          contents == null || contents.getIndexOptions() == IndexOptions.DOCS_AND_FREQS;
      String recorded = userData.get(DOCUMENTS_KEY);
      if (reader.numDocs() != reader.maxDoc()) {
        int deleted = reader.maxDoc() - reader.numDocs();
        reader.decRef();
        throw new IllegalStateException(
            "the BM25 index in "
                + path
                + " holds "
                + deleted
                + " deleted document(s), left by a failed ingest of an"
                + " older version; its documents no longer line up with their vectors");
      }
      if (recorded != null && !recorded.equals(Integer.toString(reader.maxDoc()))) {
        int held = reader.maxDoc();
        reader.decRef();
        throw new IllegalStateException(
            "the BM25 index in "
                + path
                + " holds "
                + held
                + " documents where its last commit recorded "
                + recorded
                + " (changed outside the index service)");
      }
    } catch (IOException | RuntimeException e) {
      writer.rollback();
      throw e;
    }
  }

  /** What every commit records: its document count, and whether the index stores text. */
  private static Map<String, String> commitData(int documents, boolean storesText) {
    String count = Integer.toString(documents);
    return storesText
        ? Map.of(DOCUMENTS_KEY, count, STORED_TEXT_KEY, STORED_TEXT_VALUE)
        : Map.of(DOCUMENTS_KEY, count);
  }

  /**
   * Documents a segment made by the merges of an ingest holds at most ({@link
   * LogDocMergePolicy#setMaxMergeDocs}: adjacent segments are joined up to this many documents and
   * no further), so what one merge reads through memory maps, counted in the process's resident
   * memory while it runs, stays the same whatever the collection's size. {@link
   * #mergeIntoOneSegment} lifts the cap.
   */
  static final int MAX_MERGE_DOCS = 250_000;

  private IndexWriterConfig writerConfig() {
    LogDocMergePolicy policy = new LogDocMergePolicy();
    policy.setMaxMergeDocs(MAX_MERGE_DOCS);
    return new IndexWriterConfig(analyzer)
        .setSimilarity(similarity)
        .setMergePolicy(policy)
        .setMergeScheduler(new LoggingMergeScheduler(path))
        .setOpenMode(IndexWriterConfig.OpenMode.APPEND)
        .setRAMBufferSizeMB(64)
        // Only explicit commits publish documents: an unfinished batch never survives.
        .setCommitOnClose(false);
  }

  /**
   * Opens (or creates) the index in {@code dir}; the last committed state is what is visible.
   *
   * @throws IllegalStateException when the index holds deleted documents (ordinals would shift)
   * @throws UncheckedIOException when it cannot be read (corrupt files, locked by another writer)
   */
  public static Bm25Index open(Path dir, Analyzer analyzer, Bm25Parameters parameters) {
    return open(dir, analyzer, parameters, false);
  }

  /**
   * As {@link #open(Path, Analyzer, Bm25Parameters)}; with {@code mustExist} an index that is not
   * there is an error (an existing collection whose index went missing), not a new empty index.
   */
  public static Bm25Index open(
      Path dir, Analyzer analyzer, Bm25Parameters parameters, boolean mustExist) {
    return open(dir, analyzer, parameters, mustExist, UnaryOperator.identity());
  }

  /**
   * As {@link #open(Path, Analyzer, Bm25Parameters, boolean)}, writing and reading through {@code
   * directories} applied to the folder's Lucene directory (tests wrap it to make writes fail as a
   * full disk does).
   */
  public static Bm25Index open(
      Path dir,
      Analyzer analyzer,
      Bm25Parameters parameters,
      boolean mustExist,
      UnaryOperator<Directory> directories) {
    Directory directory = null;
    try {
      directory = directories.apply(FSDirectory.open(dir));
      return new Bm25Index(dir, directory, analyzer, parameters, mustExist);
    } catch (IOException | RuntimeException e) {
      if (directory != null) {
        try {
          directory.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      if (e instanceof IOException io) {
        throw new UncheckedIOException(
            "cannot open the BM25 index in " + dir + ": " + io.getMessage(), io);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * Adds documents without digests, a large batch indexed on several threads ({@link
   * BatchSegments}); they become visible (and durable) with {@link #commit()}.
   *
   * @throws RefusedDocumentException when Lucene refuses one (the caller must {@link #rollback()})
   */
  public void add(List<LexicalDocument> documents) {
    add(documents, null);
  }

  /**
   * Adds documents with their content digests ({@code digests} null: none; else digest {@code i} is
   * document {@code i}'s, and may be null), a large batch indexed on several threads ({@link
   * BatchSegments}); they become visible (and durable) with {@link #commit()}.
   *
   * @throws RefusedDocumentException when Lucene refuses a document (e.g. a term over 32,766
   *     bytes), naming its place in {@code documents}; the caller must {@link #rollback()}
   */
  public void add(List<LexicalDocument> documents, List<byte[]> digests) {
    add(documents, digests, BatchSegments.parts(documents));
  }

  /**
   * As {@link #add(List, List)}, the documents built as {@code parts} segments on the pool ({@link
   * BatchSegments}); with 1, added by this index's writer on this thread.
   */
  void add(List<LexicalDocument> documents, List<byte[]> digests, int parts) {
    if (parts == 1) {
      for (int i = 0; i < documents.size(); i++) {
        try {
          add(documents.get(i), digests == null ? null : digests.get(i));
        } catch (IllegalArgumentException refused) {
          throw new RefusedDocumentException(i, refused);
        }
      }
      return;
    }
    try (BatchSegments built = BatchSegments.start(this, documents, digests, parts)) {
      append(built.segments(), documents.size());
    }
  }

  /** Appends whole segments that hold {@code documents} documents, in order, after those added. */
  private synchronized void append(List<Directory> segments, int documents) {
    try {
      writer.addIndexes(segments.toArray(Directory[]::new));
      added += documents;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot add documents to the BM25 index in " + path, e);
    } catch (RuntimeException closed) {
      throw afterTragedy(closed);
    }
  }

  /**
   * The writer of a part's segment ({@link BatchSegments}): this index's analyzer and similarity,
   * everything in one segment, files not packed into a compound file (the index's merges pack or
   * rewrite them).
   */
  IndexWriterConfig segmentWriterConfig() {
    return new IndexWriterConfig(analyzer)
        .setSimilarity(similarity)
        .setMergePolicy(NoMergePolicy.INSTANCE)
        .setMaxBufferedDocs(IndexWriterConfig.DISABLE_AUTO_FLUSH)
        .setRAMBufferSizeMB(256)
        .setUseCompoundFile(false)
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE);
  }

  /** The Lucene document this index writes for {@code doc} and its content digest (may be null). */
  Document luceneDocument(LexicalDocument doc, byte[] digest) {
    return luceneDocument(doc, digest, countsOnly, storesText);
  }

  /**
   * The Lucene document an index created by this version writes for {@code doc}, without a digest:
   * for a measurement of Lucene alone writing the same fields ({@code tenbin bench lucene}).
   */
  public static Document luceneDocumentAsCreated(LexicalDocument doc) {
    return luceneDocument(doc, null, true, true);
  }

  private static Document luceneDocument(
      LexicalDocument doc, byte[] digest, boolean countsOnly, boolean storesText) {
    Document lucene = new Document();
    lucene.add(new StringField(ID_FIELD, doc.id(), Field.Store.NO));
    lucene.add(new StoredField(ID_FIELD, doc.id()));
    lucene.add(new SortedDocValuesField(ID_FIELD, new BytesRef(doc.id())));
    lucene.add(
        new Field(
            CONTENTS_FIELD,
            doc.contents(),
            countsOnly ? COUNTED_CONTENTS : TextField.TYPE_NOT_STORED));
    if (digest != null) {
      lucene.add(new StoredField(DIGEST_FIELD, digest));
    }
    if (storesText) {
      lucene.add(new StoredField(TITLE_FIELD, doc.title() == null ? "" : doc.title()));
      lucene.add(new StoredField(TEXT_FIELD, doc.text() == null ? "" : doc.text()));
    }
    return lucene;
  }

  /** Lucene refused the document at {@link #position()} of a list being added. */
  public static final class RefusedDocumentException extends IllegalArgumentException {
    private final int position;

    RefusedDocumentException(int position, IllegalArgumentException cause) {
      super(cause.getMessage(), cause);
      this.position = position;
    }

    /** The refused document's place in the list given to {@link #add(List, List)}. */
    public int position() {
      return position;
    }

    /** Whether Lucene refused it for a term over its 32,766-byte limit. */
    public boolean immenseTerm() {
      return String.valueOf(getMessage()).contains("immense term");
    }
  }

  /**
   * Adds one document and its content digest (may be null); it becomes visible (and durable) with
   * {@link #commit()}.
   *
   * @throws IllegalArgumentException when Lucene refuses the document (e.g. a term over 32,766
   *     bytes); the writer then holds a deleted document, so the caller must {@link #rollback()}
   */
  public synchronized void add(LexicalDocument doc, byte[] digest) {
    try {
      writer.addDocument(luceneDocument(doc, digest));
      added++;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot add a document to the BM25 index in " + path, e);
    } catch (RuntimeException closed) {
      throw afterTragedy(closed);
    }
  }

  /**
   * What a writer closed by an I/O failure of its own (a "tragic event", such as a background merge
   * that met a full disk) throws next, as the I/O failure it is: an {@link UncheckedIOException}
   * naming this index and carrying that failure. Anything else unchanged. The writer is replaced by
   * {@link #rollback()}.
   */
  private RuntimeException afterTragedy(RuntimeException failure) {
    if (writer.getTragicException() instanceof IOException io) {
      UncheckedIOException stopped =
          new UncheckedIOException(
              "the BM25 index in "
                  + path
                  + " stopped writing after an I/O error: "
                  + io.getMessage(),
              io);
      stopped.addSuppressed(failure);
      return stopped;
    }
    return failure;
  }

  /** Makes everything added so far durable and visible, atomically. */
  public synchronized void commit() {
    try {
      writer.setLiveCommitData(commitData(reader.maxDoc() + added, storesText).entrySet());
      writer.commit();
      added = 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot commit the BM25 index in " + path, e);
    } catch (RuntimeException closed) {
      throw afterTragedy(closed);
    }
    refresh();
  }

  /**
   * Discards everything added since the last commit (Lucene's {@link IndexWriter#rollback()}, which
   * closes the writer) and opens a new writer and reader on the last commit.
   */
  public synchronized void rollback() {
    try {
      added = 0;
      writer.rollback();
      writer = new IndexWriter(writerDirectory, writerConfig());
      DirectoryReader fresh = DirectoryReader.open(directory);
      DirectoryReader old = reader;
      reader = fresh;
      old.decRef();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot roll back the BM25 index in " + path, e);
    }
  }

  private void refresh() {
    try {
      DirectoryReader refreshed = DirectoryReader.openIfChanged(reader);
      if (refreshed != null) {
        DirectoryReader old = reader;
        reader = refreshed;
        old.decRef();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reopen the BM25 index in " + path, e);
    }
  }

  /** The content digest stored with committed document {@code ordinal}, or null (none stored). */
  public byte[] digest(int ordinal) {
    DirectoryReader current = acquire();
    try {
      BytesRef digest =
          current
              .storedFields()
              .document(ordinal, java.util.Set.of(DIGEST_FIELD))
              .getBinaryValue(DIGEST_FIELD);
      return digest == null ? null : BytesRef.deepCopyOf(digest).bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  /**
   * Whether the contents field records counts only, no positions (an index whose documents an older
   * version wrote records positions).
   */
  public boolean countsOnly() {
    return countsOnly;
  }

  /** Whether documents' title and text are stored (indexes created before this keep neither). */
  public boolean storesText() {
    return storesText;
  }

  /**
   * Hands the committed documents at {@code ordinals}, with their stored title and text, to {@code
   * sink} one at a time, in the order asked (a sink that throws stops the walk; nothing more is
   * read).
   *
   * @throws IllegalStateException when the index does not {@link #storesText() store text}
   * @throws IndexOutOfBoundsException when an ordinal is not a committed document's
   */
  public void documents(int[] ordinals, Consumer<LexicalDocument> sink) {
    if (!storesText) {
      throw new IllegalStateException("the BM25 index in " + path + " stores no document text");
    }
    DirectoryReader current = acquire();
    try {
      StoredFields stored = current.storedFields();
      Set<String> fields = Set.of(ID_FIELD, TITLE_FIELD, TEXT_FIELD);
      for (int ordinal : ordinals) {
        if (ordinal < 0 || ordinal >= current.maxDoc()) {
          throw new IndexOutOfBoundsException(
              "ordinal " + ordinal + " outside the index's " + current.maxDoc() + " documents");
        }
        Document doc = stored.document(ordinal, fields);
        sink.accept(
            new LexicalDocument(
                doc.get(ID_FIELD),
                Objects.requireNonNullElse(doc.get(TITLE_FIELD), ""),
                Objects.requireNonNullElse(doc.get(TEXT_FIELD), "")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  /**
   * Merges the index into one segment and commits it (documents keep their order: the merge policy
   * joins adjacent segments); returns the segments there were before. Searches meanwhile read the
   * last commit.
   */
  public synchronized int mergeIntoOneSegment() {
    if (added != 0) {
      throw new IllegalStateException(
          "the BM25 index in " + path + " holds documents not committed; commit before a merge");
    }
    int before = segments();
    if (before <= 1) {
      return before;
    }
    LogDocMergePolicy policy = (LogDocMergePolicy) writer.getConfig().getMergePolicy();
    int cap = policy.getMaxMergeDocs();
    try {
      // The cap on what an ingest's merges join would keep the larger segments apart.
      policy.setMaxMergeDocs(Integer.MAX_VALUE);
      writerDirectory.readingThroughFiles(() -> writer.forceMerge(1));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot merge the BM25 index in " + path, e);
    } catch (RuntimeException closed) {
      throw afterTragedy(closed);
    } finally {
      policy.setMaxMergeDocs(cap);
    }
    commit();
    return before;
  }

  /** Test hook: caps the segments an ingest's merges join at {@code documents} documents. */
  synchronized void capMerges(int documents) {
    ((LogDocMergePolicy) writer.getConfig().getMergePolicy()).setMaxMergeDocs(documents);
  }

  /** Test hook: waits for the merges running or pending, then commits what they made. */
  synchronized void awaitMerges() {
    try {
      writer.maybeMerge();
      ((ConcurrentMergeScheduler) writer.getConfig().getMergeScheduler()).sync();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    commit();
  }

  /** Segments of the last commit. */
  public int segments() {
    return reader.leaves().size();
  }

  /** Committed documents. */
  public int size() {
    return reader.numDocs();
  }

  /** Document ids in ordinal (insertion) order. */
  public List<String> idsInOrder() {
    List<String> ids = new ArrayList<>(size());
    forEachIdInOrder(ids::add);
    return ids;
  }

  /** Hands each document id to {@code sink} in ordinal (insertion) order, one at a time. */
  public void forEachIdInOrder(Consumer<String> sink) {
    DirectoryReader current = acquire();
    try {
      StoredFields stored = current.storedFields();
      Set<String> idOnly = Set.of(ID_FIELD);
      for (int doc = 0; doc < current.maxDoc(); doc++) {
        String id = stored.document(doc, idOnly).get(ID_FIELD);
        if (id == null) {
          throw new IllegalStateException(
              "the BM25 index in "
                  + path
                  + " holds a document without an id (ordinal "
                  + doc
                  + ")");
        }
        sink.accept(id);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  /**
   * The statistics BM25 scores {@code texts} with here: the field's, and those of every distinct
   * analysed term of the texts that a committed document holds, in the order first met.
   */
  public Bm25Statistics statistics(List<String> texts) {
    DirectoryReader current = acquire();
    try {
      IndexSearcher searcher = new IndexSearcher(current);
      org.apache.lucene.search.CollectionStatistics field =
          searcher.collectionStatistics(CONTENTS_FIELD);
      Map<String, Bm25Statistics.Term> terms = new java.util.LinkedHashMap<>();
      for (String text : texts) {
        for (String term : BagOfWordsQuery.termCounts(analyzer, CONTENTS_FIELD, text).keySet()) {
          if (terms.containsKey(term)) {
            continue;
          }
          org.apache.lucene.index.Term key = new org.apache.lucene.index.Term(CONTENTS_FIELD, term);
          int documentFrequency = current.docFreq(key);
          if (documentFrequency > 0) {
            terms.put(term, new Bm25Statistics.Term(documentFrequency, current.totalTermFreq(key)));
          }
        }
      }
      return field == null
          ? new Bm25Statistics(current.maxDoc(), 0, 0, 0, terms)
          : new Bm25Statistics(
              field.maxDoc(),
              field.docCount(),
              field.sumTotalTermFreq(),
              field.sumDocFreq(),
              terms);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  /**
   * A searcher of {@code reader} that scores BM25 with {@code statistics} in place of the reader's
   * own (a term they do not name keeps the reader's), or the plain searcher when null.
   */
  private IndexSearcher searcher(DirectoryReader reader, Bm25Statistics statistics) {
    IndexSearcher searcher =
        statistics == null
            ? new IndexSearcher(reader)
            : new IndexSearcher(reader) {
              @Override
              public org.apache.lucene.search.CollectionStatistics collectionStatistics(
                  String field) throws IOException {
                if (!field.equals(CONTENTS_FIELD)) {
                  return super.collectionStatistics(field);
                }
                return new org.apache.lucene.search.CollectionStatistics(
                    field,
                    statistics.maxDocuments(),
                    statistics.documentCount(),
                    statistics.totalTermCount(),
                    statistics.totalDocumentFrequency());
              }

              @Override
              public org.apache.lucene.search.TermStatistics termStatistics(
                  org.apache.lucene.index.Term term, int docFreq, long totalTermFreq)
                  throws IOException {
                Bm25Statistics.Term global =
                    term.field().equals(CONTENTS_FIELD)
                        ? statistics.terms().get(term.text())
                        : null;
                return global == null
                    ? super.termStatistics(term, docFreq, totalTermFreq)
                    : new org.apache.lucene.search.TermStatistics(
                        term.bytes(), global.documentFrequency(), global.totalTermFrequency());
              }
            };
    searcher.setSimilarity(similarity);
    return searcher;
  }

  /** Top {@code k} hits for a query text, ties by id ascending. */
  public List<Hit> search(String queryText, int k, Cancellation cancellation) {
    return search(queryText, k, null, cancellation);
  }

  /**
   * Top {@code k} hits for a query text scored with {@code statistics} (null: the index's own),
   * ties by id ascending.
   */
  public List<Hit> search(
      String queryText, int k, Bm25Statistics statistics, Cancellation cancellation) {
    cancellation.throwIfCancelled();
    Query query = BagOfWordsQuery.build(analyzer, CONTENTS_FIELD, queryText);
    if (query == null) {
      return List.of();
    }
    DirectoryReader current = acquire();
    try {
      IndexSearcher searcher = searcher(current, statistics);
      // Score descending, ties by id: a top k by score with block-max WAND, then the ties at
      // the k-th score (ScoreThenIdTopK), not a sort on the id's doc values.
      List<Hit> hits = ScoreThenIdTopK.search(searcher, query, k, ID_FIELD);
      return hits;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      release(current);
    }
  }

  /**
   * BM25 scores of given ordinals for a query (0 for documents matching no term). Only the given
   * documents are scored: the query's scorer is advanced to each of them, segment by segment, so
   * the cost follows the number of ordinals, not the number of matching documents. Scores are those
   * {@link #search} gives the same documents.
   */
  public float[] score(String queryText, int[] ordinals, Cancellation cancellation) {
    return score(queryText, ordinals, null, cancellation);
  }

  /**
   * As {@link #score(String, int[], Cancellation)}, with {@code statistics} (null: the index's).
   */
  public float[] score(
      String queryText, int[] ordinals, Bm25Statistics statistics, Cancellation cancellation) {
    cancellation.throwIfCancelled();
    float[] scores = new float[ordinals.length];
    Query query = BagOfWordsQuery.build(analyzer, CONTENTS_FIELD, queryText);
    if (query == null || ordinals.length == 0) {
      return scores;
    }
    DirectoryReader current = acquire();
    try {
      IndexSearcher searcher = searcher(current, statistics);
      Weight weight = searcher.createWeight(searcher.rewrite(query), ScoreMode.COMPLETE, 1f);
      Integer[] positions = new Integer[ordinals.length];
      for (int i = 0; i < ordinals.length; i++) {
        if (ordinals[i] < 0 || ordinals[i] >= current.maxDoc()) {
          throw new IndexOutOfBoundsException(
              "ordinal " + ordinals[i] + " outside the index's " + current.maxDoc() + " documents");
        }
        positions[i] = i;
      }
      Arrays.sort(positions, Comparator.comparingInt(i -> ordinals[i]));
      List<LeafReaderContext> leaves = current.leaves();
      int next = 0;
      for (LeafReaderContext leaf : leaves) {
        int end = leaf.docBase + leaf.reader().maxDoc();
        if (next == positions.length || ordinals[positions[next]] >= end) {
          continue;
        }
        Scorer scorer = weight.scorer(leaf);
        DocIdSetIterator matches = scorer == null ? null : scorer.iterator();
        while (next < positions.length && ordinals[positions[next]] < end) {
          int doc = ordinals[positions[next]] - leaf.docBase;
          if (matches != null) {
            int at = matches.docID() < doc ? matches.advance(doc) : matches.docID();
            if (at == doc) {
              scores[positions[next]] = scorer.score();
            }
          }
          next++;
        }
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

  /**
   * The current reader, referenced; a reader swapped out meanwhile is retried, a closed index
   * refused.
   */
  private DirectoryReader acquire() {
    while (true) {
      DirectoryReader current = reader;
      if (current.tryIncRef()) {
        return current;
      }
      if (closed && current == reader) {
        throw new UnavailableException(
            "the collection was closed (dropped, or the service is stopping)");
      }
      Thread.onSpinWait();
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
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try (Directory closing = directory;
        Directory closingWrites = writerDirectory) {
      try {
        reader.decRef();
      } finally {
        // Nothing uncommitted is kept: rollback releases the write lock without a commit.
        writer.rollback();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close the BM25 index in " + path, e);
    }
  }

  /**
   * Lucene's concurrent merges, a failed one reported as one log line instead of a stack trace on
   * the merge thread's standard error (Lucene's own handling): the failure has closed the writer
   * already, and the next write reports it ({@link #afterTragedy}).
   */
  private static final class LoggingMergeScheduler extends ConcurrentMergeScheduler {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Bm25Index.class);
    private final Path path;

    LoggingMergeScheduler(Path path) {
      this.path = path;
    }

    @Override
    protected void handleMergeException(Throwable failure) {
      log.warn("BM25 index in {}: a background merge failed: {}", path, failure.toString());
    }
  }
}
