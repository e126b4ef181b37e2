package dev.tenbin.index.collection;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.NotFoundException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.StorageFullException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.Quantization;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.lexical.LexicalDocument;
import dev.tenbin.index.multivector.MaxSimSearcher;
import dev.tenbin.index.quantize.Int8Calibration;
import dev.tenbin.index.quantize.Int8Quantizer;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.rank.OrdinalHit;
import dev.tenbin.index.search.DenseQuery;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.search.MultiVectorQuery;
import dev.tenbin.index.search.Query;
import dev.tenbin.index.search.SearchRequest;
import dev.tenbin.index.search.SearchResult;
import dev.tenbin.index.search.SearchStats;
import dev.tenbin.index.search.SparseQuery;
import dev.tenbin.index.sparse.ImpactSearcher;
import dev.tenbin.index.sparse.SparseDoc;
import dev.tenbin.index.sparse.SparseVectorStore;
import dev.tenbin.index.storage.DurableFiles;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One collection: its spec and the representations stored for it ({@link CollectionStores}).
 *
 * <p>Each ingest batch is all-or-nothing: it is validated whole ({@link BatchPlan}) before anything
 * is written, then appended to every store and committed with Lucene last; any failure after
 * writing began rolls every store back to the last commit, so the collection always equals its last
 * committed state, in memory and on disk. Should the rollback itself fail, the collection stops
 * serving ({@link #failure()}) until it is reopened, which aligns the stores again.
 */
public final class IndexCollection implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(IndexCollection.class);

  private final CollectionSpec spec;
  private final Path directory;
  private final CollectionStores stores;
  private final DocumentIds ids;

  /** The int8 calibration of the committed vectors, kept up to date per batch; null: not known. */
  private dev.tenbin.index.dense.Int8Ranges int8Ranges;

  private IngestFaults faults = IngestFaults.NONE;
  private volatile String failure;
  private volatile boolean closed;
  private volatile DenseSearcher denseSearcher;
  private volatile ImpactSearcher sparseSearcher;
  private volatile MaxSimSearcher maxSimSearcher;

  private IndexCollection(
      CollectionSpec spec, Path directory, CollectionStores stores, DocumentIds ids) {
    this.spec = spec;
    this.directory = directory;
    this.stores = stores;
    this.ids = ids;
  }

  /**
   * Opens the collection in {@code directory} at its last commit, or creates it empty.
   *
   * @throws RuntimeException when its stores cannot be opened or do not belong together (nothing is
   *     left open then)
   */
  static IndexCollection open(CollectionSpec spec, Path directory, boolean create) {
    return open(spec, directory, create, java.util.function.UnaryOperator.identity());
  }

  /** As above, the BM25 index written through {@code luceneDirectory} (fault injection). */
  static IndexCollection open(
      CollectionSpec spec,
      Path directory,
      boolean create,
      java.util.function.UnaryOperator<org.apache.lucene.store.Directory> luceneDirectory) {
    CollectionStores stores = CollectionStores.open(spec, directory, create, luceneDirectory);
    try {
      return new IndexCollection(spec, directory, stores, stores.alignToLexical());
    } catch (RuntimeException | Error e) {
      try {
        stores.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  public CollectionSpec spec() {
    return spec;
  }

  /** Why the collection stopped serving, or null while it serves. */
  public String failure() {
    return failure;
  }

  /** Committed documents. */
  public long size() {
    return stores.lexical.size();
  }

  /**
   * Whether the collection keeps its documents' title and text ({@link #documents}); collections
   * created before text was stored keep only ids and digests.
   */
  public boolean storesText() {
    return stores.lexical.storesText();
  }

  /**
   * Hands committed documents by id, with their stored title and text, to {@code sink} in the order
   * of {@code ids}, one at a time (a sink may stop the walk by throwing, e.g. at a size limit).
   * Every id is checked before any document is read.
   *
   * @throws NotFoundException naming {@code field[i]} for an id the collection does not hold
   * @throws PreconditionException naming {@code collection} when the collection stores no text (it
   *     was created before text was stored) or stopped serving
   */
  public void documents(List<String> ids, String field, Consumer<LexicalDocument> sink) {
    requireServing();
    requireText("fetch their text");
    int[] ordinals = new int[ids.size()];
    synchronized (this) {
      for (int i = 0; i < ordinals.length; i++) {
        Integer ordinal = this.ids.ordinalOf(ids.get(i));
        if (ordinal == null) {
          throw new NotFoundException(
              field + "[" + i + "]",
              "collection " + spec.name() + " holds no document " + Excerpt.of(ids.get(i)));
        }
        ordinals[i] = ordinal;
      }
    }
    stores.lexical.documents(ordinals, sink);
  }

  /**
   * A walk over the committed documents in id order, each with its title, text and vectors as
   * ingest takes them: the documents committed now (a batch committed later is not in it), read
   * from the stores as the walk goes.
   *
   * @throws PreconditionException naming {@code collection} when the collection stores no text or
   *     stopped serving
   */
  public DocumentCursor documentsInIdOrder() {
    requireServing();
    requireText("export them");
    int[] ordinals;
    synchronized (this) {
      ordinals = ids.ordinalsInIdOrder();
    }
    return new DocumentCursor(stores, ordinals, this::requireServing);
  }

  /**
   * The digest of the collection's content ({@link CollectionDigest}): every committed document's
   * id and stored content in id order, read from the stores one document at a time.
   *
   * @throws PreconditionException naming {@code collection} when the collection stores no text or
   *     stopped serving
   */
  public CollectionDigest digest() {
    return CollectionDigest.of(documentsInIdOrder());
  }

  private void requireText(String toDo) {
    if (!storesText()) {
      throw new PreconditionException(
          "collection",
          "collection "
              + spec.name()
              + " was created before the index service stored documents' text: it holds only ids"
              + " and digests; re-ingest its documents into a new collection to "
              + toDo);
    }
  }

  /** Bytes the collection's files take on disk, or -1 when they cannot be measured. */
  public long bytesOnDisk() {
    return stores.bytesOnDisk();
  }

  /** Test hook: failures to inject while a batch is written. */
  synchronized void injectFaults(IngestFaults faults) {
    this.faults = faults;
  }

  /**
   * Validates and commits one batch atomically across every store. Documents already committed with
   * identical content are acknowledged and left as they are (a re-sent batch is a no-op).
   *
   * @throws InvalidInputException naming the field ({@code documents[3].id}) when the batch is
   *     invalid; nothing was written
   * @throws UnavailableException when writing failed (an I/O error); the collection is back at its
   *     last commit and the batch may be sent again
   * @throws StorageFullException when writing failed for lack of disk space (naming the store); the
   *     collection is back at its last commit, with no file of the batch left, and the batch may be
   *     sent again once there is room
   * @throws PreconditionException when the collection stopped serving
   */
  public synchronized IngestResult ingest(List<IngestDocument> batch) {
    requireServing();
    BatchPlan plan =
        BatchPlan.of(
            batch,
            spec,
            stores,
            new BatchPlan.Committed() {
              @Override
              public Integer ordinalOf(String id) {
                return ids.ordinalOf(id);
              }

              @Override
              public byte[] digestAt(int ordinal) {
                return stores.lexical.digest(ordinal);
              }
            });
    String lastId = batch.isEmpty() ? "" : batch.getLast().id();
    if (plan.fresh().isEmpty()) {
      return new IngestResult(batch.size(), plan.alreadyCommitted(), ids.size(), lastId);
    }
    int before = ids.size();
    boolean keptByRecovery = false;
    try {
      stores.append(plan.fresh(), plan.digests(), plan.positions());
      faults.at(IngestFaults.Stage.APPENDED);
      stores.commit(faults);
    } catch (RuntimeException | Error writeFailure) {
      keptByRecovery = recover(writeFailure, before + plan.fresh().size());
      if (!keptByRecovery) {
        throw asClientFailure(writeFailure);
      }
    }
    if (!keptByRecovery) {
      for (IngestDocument doc : plan.fresh()) {
        ids.add(doc.id());
      }
    }
    resetSearchers();
    if (stores.dense != null) {
      if (keptByRecovery || int8Ranges == null) {
        int8Ranges = dev.tenbin.index.dense.Int8Ranges.of(stores.dense.mapped());
      } else {
        for (IngestDocument doc : plan.fresh()) {
          int8Ranges.add(doc.dense());
        }
      }
      writeCalibration();
    }
    return new IngestResult(batch.size(), plan.alreadyCommitted(), ids.size(), lastId);
  }

  /**
   * Merges the collection's Lucene index into one segment and commits it (an ingest message's
   * {@code merge_segments}, for a collection whose ingest is complete): the documents, their order
   * and every ranking stay as they are, and a search visits one segment instead of one or more per
   * batch. Returns the segments there were before.
   *
   * @throws UnavailableException when the merge failed (an I/O error); the collection is at its
   *     last commit
   * @throws StorageFullException when the disk had no room for the merged segment
   * @throws PreconditionException when the collection stopped serving
   */
  public synchronized int mergeSegments() {
    requireServing();
    long start = System.nanoTime();
    int before;
    try {
      before = stores.lexical.mergeIntoOneSegment();
    } catch (RuntimeException mergeFailure) {
      throw asClientFailure(mergeFailure);
    }
    resetSearchers();
    if (before > 1) {
      log.info(
          "collection {}: merged {} segments of {} documents into one in {} ms",
          spec.name(),
          before,
          ids.size(),
          (System.nanoTime() - start) / 1_000_000);
    }
    return before;
  }

  /** Segments of the collection's committed Lucene index. */
  public int segments() {
    return stores.lexical.segments();
  }

  /**
   * Rolls every store back to Lucene's last commit after a failed write and rebuilds the in-memory
   * view from it. Returns true when that commit turns out to hold the batch (the failure came after
   * Lucene's commit point). When the rollback fails too, the collection stops serving.
   */
  private boolean recover(Throwable writeFailure, int countWithBatch) {
    try {
      faults.at(IngestFaults.Stage.ROLLING_BACK);
      int8Ranges = null;
      DocumentIds committed = stores.rollback();
      ids.truncateTo(0);
      for (int ordinal = 0; ordinal < committed.size(); ordinal++) {
        ids.add(committed.id(ordinal));
      }
      resetSearchers();
    } catch (RuntimeException | Error rollbackFailure) {
      writeFailure.addSuppressed(rollbackFailure);
      failure =
          "a failed ingest could not be rolled back; the collection serves again once the service reopens it";
      log.error("collection {}: {}", spec.name(), failure, writeFailure);
      throw new PreconditionException(
          "collection", "collection " + spec.name() + " stopped serving: " + failure);
    }
    if (ids.size() == countWithBatch) {
      log.warn(
          "collection {}: a batch failed after its commit point and is kept",
          spec.name(),
          writeFailure);
      return true;
    }
    if (StorageFullException.diskFull(writeFailure).isPresent()) {
      // An operator's condition, not a bug: one line saying where, without a stack trace.
      log.error(
          "collection {}: no space left on device writing {}; rolled back to the last commit",
          spec.name(),
          directory.resolve(storeOf(writeFailure)));
    } else if (!(writeFailure instanceof InvalidInputException)) {
      log.error(
          "collection {}: writing a batch failed; rolled back to the last commit",
          spec.name(),
          writeFailure);
    }
    return false;
  }

  /**
   * The store of this collection a write failure names in its messages ({@code bm25}, {@code
   * dense}, ...): the first folder below the collection's in a path the failure or its causes
   * mention; "" when none does.
   */
  private String storeOf(Throwable failure) {
    String prefix = directory.toString() + java.io.File.separator;
    java.util.Map<Throwable, Boolean> seen = new java.util.IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      String message = t.getMessage();
      int at = message == null ? -1 : message.indexOf(prefix);
      if (at >= 0) {
        String rest = message.substring(at + prefix.length());
        int end = 0;
        while (end < rest.length()
            && rest.charAt(end) != java.io.File.separatorChar
            && !Character.isWhitespace(rest.charAt(end))
            && rest.charAt(end) != ':') {
          end++;
        }
        return rest.substring(0, end);
      }
    }
    return "";
  }

  /**
   * What the client hears about a write failure, once the collection is back at its last commit.
   */
  private RuntimeException asClientFailure(Throwable writeFailure) {
    if (writeFailure instanceof InvalidInputException invalid) {
      return invalid;
    }
    if (StorageFullException.diskFull(writeFailure).isPresent()) {
      String store = storeOf(writeFailure);
      return new StorageFullException(
          "collection "
              + spec.name()
              + " could not store the batch: no space left on device"
              + (store.isEmpty() ? "" : " (writing its " + store + " store)")
              + "; it is back at its last commit, and the batch may be sent again once the"
              + " service's disk has room",
          writeFailure);
    }
    return switch (writeFailure) {
      case UncheckedIOException io ->
          new UnavailableException(
              "collection "
                  + spec.name()
                  + " could not store the batch (an I/O error, in the service log);"
                  + " it is back at its last commit and the batch may be sent again");
      case RuntimeException other -> other;
      case Error error -> throw error;
      default -> new IllegalStateException(writeFailure);
    };
  }

  private void requireServing() {
    if (closed) {
      throw new UnavailableException(
          "collection " + spec.name() + " was closed (dropped, or the service is stopping)");
    }
    String why = failure;
    if (why != null) {
      throw new PreconditionException(
          "collection", "collection " + spec.name() + " stopped serving: " + why);
    }
  }

  private void resetSearchers() {
    denseSearcher = null;
    sparseSearcher = null;
    maxSimSearcher = null;
  }

  private synchronized int[] ordinals(List<String> docIds, String field) {
    int[] ordinals = new int[docIds.size()];
    for (int i = 0; i < ordinals.length; i++) {
      Integer ordinal = ids.ordinalOf(docIds.get(i));
      if (ordinal == null) {
        throw new InvalidInputException(
            field + "[" + i + "]", "unknown document id " + Excerpt.of(docIds.get(i)));
      }
      ordinals[i] = ordinal;
    }
    return ordinals;
  }

  private synchronized MaxSimSearcher maxSimSearcher() {
    if (maxSimSearcher == null) {
      maxSimSearcher =
          new MaxSimSearcher(
              stores.multiVectors.snapshot(), stores.multiVectors.dimension(), idOrder());
    }
    return maxSimSearcher;
  }

  /**
   * Runs one search request: the top {@code k} of the collection or the scores of fixed candidate
   * lists, for queries of one family. Every ranking is best first: score descending, then doc id
   * ascending. Dense queries are searched in one pass over the corpus (the same results as one at a
   * time).
   *
   * @throws InvalidInputException naming the field when the collection does not store the family's
   *     representation ({@code family}), a query vector does not fit it, a BM25 query has more than
   *     {@link dev.tenbin.index.lexical.BagOfWordsQuery#MAX_TERMS} distinct terms ({@code
   *     queries[i].text}, {@code candidates[i].query.text}), or a candidate id is unknown ({@code
   *     candidates[i].doc_ids[j]})
   */
  public SearchResult search(SearchRequest request, Cancellation cancellation) {
    long start = System.nanoTime();
    if (!request.isRescore()
        && !request.queries().isEmpty()
        && request.queries().getFirst() instanceof DenseQuery first) {
      return denseTopK(request, first.options(), start, cancellation);
    }
    List<List<Hit>> rankings = new ArrayList<>(request.queries().size());
    for (int i = 0; i < request.queries().size(); i++) {
      Query query = request.queries().get(i);
      String queryField =
          request.isRescore() ? "candidates[" + i + "].query" : "queries[" + i + "]";
      try {
        rankings.add(
            request.isRescore()
                ? rescore(
                    query,
                    request.candidates().get(i),
                    "candidates[" + i + "].doc_ids",
                    cancellation)
                : topK(query, request.k(), cancellation));
      } catch (InvalidInputException refused) {
        // A BM25 query's text refused by the lexical index (too many terms) is named from its
        // place in the request: queries[3].text, candidates[3].query.text.
        if (query instanceof LexicalQuery && "text".equals(refused.field())) {
          throw refused.within(queryField);
        }
        throw refused;
      }
    }
    return new SearchResult(rankings, SearchStats.timed(System.nanoTime() - start));
  }

  private List<Hit> topK(Query query, int k, Cancellation cancellation) {
    return switch (query) {
      case LexicalQuery lexical ->
          stores.lexical.search(lexical.text(), k, lexical.statistics(), cancellation);
      case SparseQuery sparse ->
          ids(
              sparseSearcher(sparse, "queries.sparse")
                  .search(
                      sparse.vector(),
                      sparse.maxQueryDims(),
                      sparse.maxDocumentDims(),
                      k,
                      cancellation));
      case MultiVectorQuery multiVector ->
          ids(
              maxSimSearcher(multiVector, "queries.multi_vector")
                  .search(multiVector.tokens(), k, cancellation));
      case DenseQuery dense ->
          throw new IllegalStateException("dense queries are searched as one batch");
    };
  }

  /** Dense top {@code k} of every query in one pass, with the variant's facts. */
  private SearchResult denseTopK(
      SearchRequest request, DenseSearchOptions options, long start, Cancellation cancellation) {
    List<float[]> vectors = new ArrayList<>(request.queries().size());
    for (Query query : request.queries()) {
      vectors.add(((DenseQuery) query).vector());
    }
    List<List<Hit>> rankings = new ArrayList<>(vectors.size());
    List<List<Hit>> exactRankings = new ArrayList<>();
    long clipped = 0;
    long saturated = 0;
    long queryValues = 0;
    long bytesPerVector = 0;
    long storedBytes = 0;
    double recallSum = 0;
    DenseSearcher searcher = denseSearcher();
    for (var result : searcher.searchBatch(vectors, options, request.k(), cancellation)) {
      rankings.add(ids(result.hits()));
      if (options.approximate()) {
        exactRankings.add(ids(result.exactHits()));
      }
      clipped += result.clippedQueryValues();
      saturated += result.saturatedQueryValues();
      queryValues += result.queryValues();
      bytesPerVector = result.bytesPerVector();
      storedBytes = result.storedBytesPerVector();
      recallSum += Double.isNaN(result.approximateRecall()) ? 0 : result.approximateRecall();
    }
    double recall = options.approximate() ? recallSum / vectors.size() : 0;
    Int8Calibration calibration = null;
    long saturatedDocuments = 0;
    long documentValues = 0;
    if (options.quantization() == Quantization.INT8 && searcher.size() > 0) {
      calibration = searcher.int8Calibration(options);
      saturatedDocuments = searcher.int8SaturatedDocumentValues(options);
      documentValues = (long) searcher.size() * calibration.dimensions();
    }
    return new SearchResult(
        rankings,
        new SearchStats(
            System.nanoTime() - start,
            clipped,
            saturated,
            queryValues,
            bytesPerVector,
            storedBytes,
            recall,
            calibration,
            saturatedDocuments,
            documentValues),
        exactRankings);
  }

  /** The scores of a fixed candidate set, ordered by score descending, then doc id ascending. */
  private List<Hit> rescore(
      Query query, List<String> docIds, String field, Cancellation cancellation) {
    return switch (query) {
      case LexicalQuery lexical -> {
        int[] ordinals = ordinals(docIds, field);
        float[] scores =
            stores.lexical.score(lexical.text(), ordinals, lexical.statistics(), cancellation);
        yield ranked(docIds, scores);
      }
      case SparseQuery sparse -> rescoreSparse(sparse, docIds, field);
      case MultiVectorQuery multiVector -> {
        MaxSimSearcher maxSim = maxSimSearcher(multiVector, "candidates.query.multi_vector");
        int[] ordinals = ordinals(docIds, field);
        float[] scores = new float[ordinals.length];
        for (int i = 0; i < ordinals.length; i++) {
          scores[i] = maxSim.score(multiVector.tokens(), ordinals[i]);
        }
        yield ranked(docIds, scores);
      }
      case DenseQuery dense -> {
        int[] ordinals = ordinals(docIds, field);
        DenseSearchOptions options = dense.options();
        yield ids(
            denseSearcher()
                .rescore(
                    dense.vector(), ordinals, options.similarity(), options.truncateDimensions()));
      }
    };
  }

  /** Sparse dot products of a fixed candidate set, pruning applied. */
  private List<Hit> rescoreSparse(SparseQuery query, List<String> docIds, String field) {
    SparseVectorStore sparse = sparseStore();
    sparse.validate(List.of(query.vector()), "candidates.query.sparse");
    int[] ordinals = ordinals(docIds, field);
    List<SparseDoc> docs = sparse.snapshot();
    SparseDoc q = query.vector().pruned(query.maxQueryDims());
    float[] scores = new float[ordinals.length];
    for (int i = 0; i < ordinals.length; i++) {
      SparseDoc doc = docs.get(ordinals[i]).pruned(query.maxDocumentDims());
      float score = 0;
      for (int t = 0; t < q.ids().length; t++) {
        int at = Arrays.binarySearch(doc.ids(), q.ids()[t]);
        if (at >= 0) {
          score += q.weights()[t] * doc.weights()[at];
        }
      }
      scores[i] = score;
    }
    return ranked(docIds, scores);
  }

  /** Candidates with their scores, sorted into ranking order. */
  private static List<Hit> ranked(List<String> docIds, float[] scores) {
    List<Hit> hits = new ArrayList<>(scores.length);
    for (int i = 0; i < scores.length; i++) {
      hits.add(new Hit(docIds.get(i), scores[i]));
    }
    hits.sort(Hit.RANKING);
    return hits;
  }

  /** A searcher's hits with their doc ids, in the searcher's order. */
  private synchronized List<Hit> ids(List<OrdinalHit> hits) {
    List<Hit> ranking = new ArrayList<>(hits.size());
    for (OrdinalHit hit : hits) {
      ranking.add(new Hit(ids.id(hit.ordinal()), hit.score()));
    }
    return ranking;
  }

  private SparseVectorStore sparseStore() {
    SparseVectorStore sparse = stores.sparse;
    if (sparse == null) {
      throw new InvalidInputException(
          "family", "collection " + spec.name() + " stores no sparse vectors");
    }
    return sparse;
  }

  private synchronized ImpactSearcher sparseSearcher(SparseQuery query, String field) {
    SparseVectorStore sparse = sparseStore();
    sparse.validate(List.of(query.vector()), field);
    if (sparseSearcher == null) {
      sparseSearcher = new ImpactSearcher(sparse.snapshot(), idOrder());
    }
    return sparseSearcher;
  }

  private synchronized MaxSimSearcher maxSimSearcher(MultiVectorQuery query, String field) {
    if (stores.multiVectors == null) {
      throw new InvalidInputException(
          "family", "collection " + spec.name() + " stores no multi-vectors");
    }
    stores.multiVectors.validate(List.of(query.tokens()), field);
    if (maxSimSearcher == null) {
      maxSimSearcher =
          new MaxSimSearcher(
              stores.multiVectors.snapshot(), stores.multiVectors.dimension(), idOrder());
    }
    return maxSimSearcher;
  }

  /** ordinal → position of its id in ascending id order (the tie policy). */
  private synchronized int[] idOrder() {
    return ids.idOrder();
  }

  /**
   * Stores the int8 calibration (per-dimension corpus minimum and maximum, cosine and dot, full
   * dimension) beside the vectors after each commit, so the collection carries the exact ranges its
   * int8 codes were made with. The ranges grow with each batch's vectors ({@link
   * dev.tenbin.index.dense.Int8Ranges}: the new vectors are read, not the whole store), and equal
   * what the searcher calibrates on. Truncated variants are calibrated the same way on demand. The
   * file is derived from the committed vectors: failing to write it does not undo the batch.
   */
  private void writeCalibration() {
    StringBuilder text =
        new StringBuilder("# Tenbin int8 calibration: corpus-only per-dimension ranges\n");
    text.append("documents=").append(ids.size()).append('\n');
    try {
      for (VectorSimilarity similarity : VectorSimilarity.values()) {
        var calibration = int8Ranges.calibration(similarity);
        if (calibration == null) {
          return; // no vector yet
        }
        text.append(similarity.name().toLowerCase(Locale.ROOT))
            .append(".min=")
            .append(Arrays.toString(calibration.min()))
            .append('\n');
        text.append(similarity.name().toLowerCase(Locale.ROOT))
            .append(".max=")
            .append(Arrays.toString(calibration.max()))
            .append('\n');
      }
      DurableFiles.replace(
          directory.resolve("dense").resolve("int8-calibration.txt"), text.toString());
    } catch (IOException | RuntimeException e) {
      log.warn(
          "collection {}: cannot store the int8 calibration file (the batch is committed)",
          spec.name(),
          e);
    }
  }

  /**
   * The int8 calibration of the full-dimension cosine variant (derived from the stored vectors).
   */
  public synchronized Int8Quantizer int8Calibration() {
    return stores.dense == null || ids.isEmpty()
        ? null
        : denseSearcher().int8(VectorSimilarity.COSINE, stores.dense.dimension());
  }

  private synchronized DenseSearcher denseSearcher() {
    if (stores.dense == null) {
      throw new InvalidInputException(
          "family", "collection " + spec.name() + " stores no dense vectors");
    }
    if (denseSearcher == null) {
      denseSearcher = new DenseSearcher(stores.dense.mapped(), idOrder());
    }
    return denseSearcher;
  }

  /**
   * The collection's own int8 ranges for the dense variant (similarity, truncation) of {@code
   * options}, over the documents of one snapshot (what a sharded collection's caller spans over its
   * shards); the ranges are null when it holds no documents.
   */
  public DenseCalibration ownInt8Calibration(DenseSearchOptions options) {
    requireServing();
    DenseSearcher searcher = denseSearcher();
    return new DenseCalibration(
        searcher.size() == 0
            ? null
            : searcher.int8Calibration(options.similarity(), options.truncateDimensions()),
        searcher.size());
  }

  /**
   * A collection's int8 ranges for one dense variant and the documents they were computed over.
   *
   * @param calibration the ranges, null when {@code documents} is 0
   * @param documents the documents of the snapshot
   */
  public record DenseCalibration(Int8Calibration calibration, int documents) {}

  /**
   * The BM25 statistics of the collection and of the analysed terms of {@code texts} (what a
   * sharded collection's caller sums over its shards).
   */
  public dev.tenbin.index.lexical.Bm25Statistics termStatistics(List<String> texts) {
    requireServing();
    return stores.lexical.statistics(texts);
  }

  /** What describing the collection reports. */
  public CollectionStats stats() {
    String why = failure;
    return new CollectionStats(
        spec.name(),
        spec,
        why == null ? CollectionState.READY : CollectionState.FAILED,
        why,
        size(),
        bytesOnDisk(),
        why == null ? int8Calibration() : null,
        storesText());
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      stores.close();
    }
  }
}
