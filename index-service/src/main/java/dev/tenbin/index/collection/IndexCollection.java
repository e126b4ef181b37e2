package dev.tenbin.index.collection;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.PreconditionException;
import dev.tenbin.core.UnavailableException;
import dev.tenbin.index.dense.DenseHit;
import dev.tenbin.index.dense.DenseSearchOptions;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.lexical.LexicalHit;
import dev.tenbin.index.multivector.MaxSimSearcher;
import dev.tenbin.index.multivector.MultiVectorStore;
import dev.tenbin.index.multivector.TokenVectors;
import dev.tenbin.index.quantize.Int8Quantizer;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  private final List<String> idsInOrder;
  private final Map<String, Integer> ordinalById = new HashMap<>();
  private IngestFaults faults = IngestFaults.NONE;
  private volatile String failure;
  private volatile boolean closed;
  private volatile DenseSearcher denseSearcher;
  private volatile ImpactSearcher sparseSearcher;
  private volatile MaxSimSearcher maxSimSearcher;

  private IndexCollection(CollectionSpec spec, Path directory, CollectionStores stores, List<String> ids) {
    this.spec = spec;
    this.directory = directory;
    this.stores = stores;
    this.idsInOrder = new ArrayList<>(ids);
    indexOrdinals();
  }

  /**
   * Opens the collection in {@code directory} at its last commit, or creates it empty.
   *
   * @throws RuntimeException when its stores cannot be opened or do not belong together (nothing
   *     is left open then)
   */
  static IndexCollection open(CollectionSpec spec, Path directory, boolean create) {
    CollectionStores stores = CollectionStores.open(spec, directory, create);
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

  /** Bytes the collection's files take on disk, or -1 when they cannot be measured. */
  public long bytesOnDisk() {
    return stores.bytesOnDisk();
  }

  /** Test hook: failures to inject while a batch is written. */
  synchronized void injectFaults(IngestFaults faults) {
    this.faults = faults;
  }

  /**
   * Validates and commits one batch atomically across every store. Documents already committed
   * with identical content are acknowledged and left as they are (a re-sent batch is a no-op).
   *
   * @throws InvalidInputException naming the field ({@code documents[3].id}) when the batch is
   *     invalid; nothing was written
   * @throws UnavailableException when writing failed (an I/O error); the collection is back at its
   *     last commit and the batch may be sent again
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
                return ordinalById.get(id);
              }

              @Override
              public byte[] digestAt(int ordinal) {
                return stores.lexical.digest(ordinal);
              }
            });
    String lastId = batch.isEmpty() ? "" : batch.getLast().id();
    if (plan.fresh().isEmpty()) {
      return new IngestResult(batch.size(), plan.alreadyCommitted(), idsInOrder.size(), lastId);
    }
    int before = idsInOrder.size();
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
        ordinalById.put(doc.id(), idsInOrder.size());
        idsInOrder.add(doc.id());
      }
    }
    resetSearchers();
    if (stores.dense != null) {
      writeCalibration();
    }
    return new IngestResult(batch.size(), plan.alreadyCommitted(), idsInOrder.size(), lastId);
  }

  /**
   * Rolls every store back to Lucene's last commit after a failed write and rebuilds the in-memory
   * view from it. Returns true when that commit turns out to hold the batch (the failure came after
   * Lucene's commit point). When the rollback fails too, the collection stops serving.
   */
  private boolean recover(Throwable writeFailure, int countWithBatch) {
    try {
      faults.at(IngestFaults.Stage.ROLLING_BACK);
      List<String> ids = stores.rollback();
      idsInOrder.clear();
      idsInOrder.addAll(ids);
      indexOrdinals();
      resetSearchers();
    } catch (RuntimeException | Error rollbackFailure) {
      writeFailure.addSuppressed(rollbackFailure);
      failure = "a failed ingest could not be rolled back; the collection serves again once the service reopens it";
      log.error("collection {}: {}", spec.name(), failure, writeFailure);
      throw new PreconditionException("collection", "collection " + spec.name() + " stopped serving: " + failure);
    }
    if (idsInOrder.size() == countWithBatch) {
      log.warn("collection {}: a batch failed after its commit point and is kept", spec.name(), writeFailure);
      return true;
    }
    if (!(writeFailure instanceof InvalidInputException)) {
      log.error("collection {}: writing a batch failed; rolled back to the last commit", spec.name(), writeFailure);
    }
    return false;
  }

  /** What the client hears about a write failure, once the collection is back at its last commit. */
  private RuntimeException asClientFailure(Throwable writeFailure) {
    return switch (writeFailure) {
      case InvalidInputException invalid -> invalid;
      case UncheckedIOException io ->
          new UnavailableException(
              "collection " + spec.name() + " could not store the batch (an I/O error, in the service log);"
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
      throw new PreconditionException("collection", "collection " + spec.name() + " stopped serving: " + why);
    }
  }

  private void indexOrdinals() {
    ordinalById.clear();
    for (int i = 0; i < idsInOrder.size(); i++) {
      ordinalById.put(idsInOrder.get(i), i);
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
      Integer ordinal = ordinalById.get(docIds.get(i));
      if (ordinal == null) {
        throw new InvalidInputException(field + "[" + i + "]", "unknown document id " + Excerpt.of(docIds.get(i)));
      }
      ordinals[i] = ordinal;
    }
    return ordinals;
  }

  private synchronized MaxSimSearcher maxSimSearcher() {
    if (maxSimSearcher == null) {
      maxSimSearcher = new MaxSimSearcher(stores.multiVectors.snapshot(), stores.multiVectors.dimension(), idOrder());
    }
    return maxSimSearcher;
  }

  /** Learned-sparse top {@code k} with query- and document-side pruning (0 = none). */
  public List<ScoredHit> searchSparse(
      SparseDoc query, int maxQueryDims, int maxDocumentDims, int k, Cancellation cancellation) {
    SparseVectorStore sparse = stores.sparse;
    if (sparse == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no sparse vectors");
    }
    sparse.validate(List.of(query), "queries.sparse");
    ImpactSearcher searcher;
    synchronized (this) {
      if (sparseSearcher == null) {
        sparseSearcher = new ImpactSearcher(sparse.snapshot(), idOrder());
      }
      searcher = sparseSearcher;
    }
    List<ScoredHit> ranking = new ArrayList<>();
    for (var hit : searcher.search(query, maxQueryDims, maxDocumentDims, k, cancellation)) {
      ranking.add(new ScoredHit(idsInOrderSnapshot(hit.ordinal()), hit.score()));
    }
    return ranking;
  }

  /** Late-interaction (MaxSim) top {@code k} over the whole corpus. */
  public List<ScoredHit> searchMaxSim(TokenVectors query, int k, Cancellation cancellation) {
    MultiVectorStore multiVectors = stores.multiVectors;
    if (multiVectors == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no multi-vectors");
    }
    multiVectors.validate(List.of(query), "queries.multi_vector");
    MaxSimSearcher searcher = maxSimSearcher();
    List<ScoredHit> ranking = new ArrayList<>();
    for (var hit : searcher.search(query, k, cancellation)) {
      ranking.add(new ScoredHit(idsInOrderSnapshot(hit.ordinal()), hit.score()));
    }
    return ranking;
  }

  /** Sparse dot-product scores of a fixed candidate set (pruning applied), ordered by score, then doc id. */
  public List<ScoredHit> rescoreSparse(
      SparseDoc query, int maxQueryDims, int maxDocumentDims, List<String> docIds, String field) {
    SparseVectorStore sparse = stores.sparse;
    if (sparse == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no sparse vectors");
    }
    sparse.validate(List.of(query), "candidates.query.sparse");
    int[] ordinals = ordinals(docIds, field);
    List<SparseDoc> docs = sparse.snapshot();
    SparseDoc q = query.pruned(maxQueryDims);
    List<ScoredHit> hits = new ArrayList<>();
    for (int i = 0; i < ordinals.length; i++) {
      SparseDoc doc = docs.get(ordinals[i]).pruned(maxDocumentDims);
      float score = 0;
      for (int t = 0; t < q.ids().length; t++) {
        int at = Arrays.binarySearch(doc.ids(), q.ids()[t]);
        if (at >= 0) {
          score += q.weights()[t] * doc.weights()[at];
        }
      }
      hits.add(new ScoredHit(docIds.get(i), score));
    }
    hits.sort(Comparator.comparing(ScoredHit::score, Comparator.reverseOrder()).thenComparing(ScoredHit::docId));
    return hits;
  }

  /** MaxSim scores of a fixed candidate set, ordered by score, then doc id. */
  public List<ScoredHit> rescoreMaxSim(TokenVectors query, List<String> docIds, String field) {
    if (stores.multiVectors == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no multi-vectors");
    }
    stores.multiVectors.validate(List.of(query), "candidates.query.multi_vector");
    int[] ordinals = ordinals(docIds, field);
    MaxSimSearcher maxSim = maxSimSearcher();
    List<ScoredHit> hits = new ArrayList<>();
    for (int i = 0; i < ordinals.length; i++) {
      hits.add(new ScoredHit(docIds.get(i), maxSim.score(query, ordinals[i])));
    }
    hits.sort(Comparator.comparing(ScoredHit::score, Comparator.reverseOrder()).thenComparing(ScoredHit::docId));
    return hits;
  }

  /** ordinal → position of its id in ascending id order (the tie policy). */
  private synchronized int[] idOrder() {
    List<String> sorted = new ArrayList<>(idsInOrder);
    Map<String, Integer> position = new HashMap<>();
    sorted.sort(null);
    for (int i = 0; i < sorted.size(); i++) {
      position.put(sorted.get(i), i);
    }
    int[] order = new int[idsInOrder.size()];
    for (int ordinal = 0; ordinal < order.length; ordinal++) {
      order[ordinal] = position.get(idsInOrder.get(ordinal));
    }
    return order;
  }

  /** Dense top {@code k} in any variant: score descending, then doc id ascending. */
  public DenseRanking searchDense(
      float[] query, DenseSearchOptions options, int k, Cancellation cancellation) {
    var result = denseSearcher().search(query, options, k, cancellation);
    List<ScoredHit> ranking = new ArrayList<>();
    for (DenseHit hit : result.hits()) {
      ranking.add(new ScoredHit(idsInOrderSnapshot(hit.ordinal()), hit.score()));
    }
    return new DenseRanking(
        ranking, result.clippedQueryValues(), result.queryValues(), result.bytesPerVector(), result.approximateRecall());
  }

  /** Dense top {@code k} of several queries in one pass; identical to searching one at a time. */
  public List<DenseRanking> searchDenseBatch(
      List<float[]> queries, DenseSearchOptions options, int k, Cancellation cancellation) {
    List<DenseRanking> rankings = new ArrayList<>(queries.size());
    for (var result : denseSearcher().searchBatch(queries, options, k, cancellation)) {
      List<ScoredHit> ranking = new ArrayList<>();
      for (DenseHit hit : result.hits()) {
        ranking.add(new ScoredHit(idsInOrderSnapshot(hit.ordinal()), hit.score()));
      }
      rankings.add(
          new DenseRanking(
              ranking, result.clippedQueryValues(), result.queryValues(), result.bytesPerVector(), result.approximateRecall()));
    }
    return rankings;
  }

  /** BM25 scores of a fixed candidate set, ordered by score descending, then doc id ascending. */
  public List<ScoredHit> rescoreBm25(String queryText, List<String> docIds, String field, Cancellation cancellation) {
    int[] ordinals = ordinals(docIds, field);
    float[] scores = stores.lexical.score(queryText, ordinals, cancellation);
    List<ScoredHit> hits = new ArrayList<>(ordinals.length);
    for (int i = 0; i < ordinals.length; i++) {
      hits.add(new ScoredHit(docIds.get(i), scores[i]));
    }
    hits.sort(Comparator.comparing(ScoredHit::score, Comparator.reverseOrder()).thenComparing(ScoredHit::docId));
    return hits;
  }

  /** Float dense scores of a fixed candidate set (any retrieval model as a reranker). */
  public List<ScoredHit> rescoreDense(
      float[] query, List<String> docIds, VectorSimilarity similarity, int truncateDimensions, String field) {
    int[] ordinals = ordinals(docIds, field);
    List<ScoredHit> hits = new ArrayList<>(ordinals.length);
    for (DenseHit hit : denseSearcher().rescore(query, ordinals, similarity, truncateDimensions)) {
      hits.add(new ScoredHit(idsInOrderSnapshot(hit.ordinal()), hit.score()));
    }
    return hits;
  }

  /** A dense ranking and facts about its variant. */
  public record DenseRanking(
      List<ScoredHit> hits, int clippedQueryValues, int queryValues, long bytesPerVector, double approximateRecall) {}

  /**
   * Stores the int8 calibration (per-dimension corpus minimum and maximum, cosine and dot, full
   * dimension) beside the vectors after each commit, so the collection carries the exact ranges its
   * int8 codes were made with. Truncated variants are calibrated the same way on demand. The file
   * is derived from the committed vectors: failing to write it does not undo the batch.
   */
  private void writeCalibration() {
    StringBuilder text = new StringBuilder("# Tenbin int8 calibration: corpus-only per-dimension ranges\n");
    text.append("documents=").append(idsInOrder.size()).append('\n');
    try {
      for (VectorSimilarity similarity : VectorSimilarity.values()) {
        var quantizer = denseSearcher().int8(similarity, stores.dense.dimension());
        text.append(similarity.name().toLowerCase()).append(".min=").append(Arrays.toString(quantizer.minimums())).append('\n');
        text.append(similarity.name().toLowerCase()).append(".max=").append(Arrays.toString(quantizer.maximums())).append('\n');
      }
      DurableFiles.replace(directory.resolve("dense").resolve("int8-calibration.txt"), text.toString());
    } catch (IOException | RuntimeException e) {
      log.warn("collection {}: cannot store the int8 calibration file (the batch is committed)", spec.name(), e);
    }
  }

  /** The int8 calibration of the full-dimension cosine variant (derived from the stored vectors). */
  public synchronized Int8Quantizer int8Calibration() {
    return stores.dense == null || idsInOrder.isEmpty()
        ? null
        : denseSearcher().int8(VectorSimilarity.COSINE, stores.dense.dimension());
  }

  private synchronized String idsInOrderSnapshot(int ordinal) {
    return idsInOrder.get(ordinal);
  }

  private synchronized DenseSearcher denseSearcher() {
    if (stores.dense == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no dense vectors");
    }
    if (denseSearcher == null) {
      denseSearcher = new DenseSearcher(stores.dense.snapshot(), stores.dense.dimension(), idOrder());
    }
    return denseSearcher;
  }

  /** BM25 top {@code k}: score descending, then doc id ascending. */
  public List<ScoredHit> searchBm25(String queryText, int k, Cancellation cancellation) {
    List<LexicalHit> hits = stores.lexical.search(queryText, k, cancellation);
    List<ScoredHit> ranking = new ArrayList<>(hits.size());
    for (LexicalHit hit : hits) {
      ranking.add(new ScoredHit(hit.docId(), hit.score()));
    }
    return ranking;
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
        why == null ? int8Calibration() : null);
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      stores.close();
    }
  }
}
