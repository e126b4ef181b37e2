package dev.tenbin.index.collection;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.dense.DenseHit;
import dev.tenbin.index.dense.DenseVectorStore;
import dev.tenbin.index.dense.DenseSearcher;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.lexical.Bm25Index;
import dev.tenbin.index.lexical.LanguageAnalyzers;
import dev.tenbin.index.lexical.LexicalDocument;
import dev.tenbin.index.lexical.LexicalHit;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One collection: its spec and the representations stored for it. Each ingest batch is validated
 * whole before anything is written, then committed atomically, so a failure or a crash leaves the
 * last committed state.
 */
public final class IndexCollection implements Closeable {
  private final CollectionSpec spec;
  private final Path directory;
  private final Bm25Index lexical;
  private final DenseVectorStore dense;
  private final dev.tenbin.index.sparse.SparseVectorStore sparse;
  private final dev.tenbin.index.multivector.MultiVectorStore multiVectors;
  private volatile dev.tenbin.index.sparse.ImpactSearcher sparseSearcher;
  private volatile dev.tenbin.index.multivector.MaxSimSearcher maxSimSearcher;
  private final List<String> idsInOrder;
  private final Set<String> ids;
  private volatile DenseSearcher denseSearcher;

  private IndexCollection(CollectionSpec spec, Path directory, Bm25Index lexical, DenseVectorStore dense) {
    this.spec = spec;
    this.directory = directory;
    this.lexical = lexical;
    this.dense = dense;
    this.sparse =
        spec.sparseVocabularySize() > 0
            ? dev.tenbin.index.sparse.SparseVectorStore.open(directory.resolve("sparse"), spec.sparseVocabularySize())
            : null;
    this.multiVectors =
        spec.multiVectorDimension() > 0
            ? dev.tenbin.index.multivector.MultiVectorStore.open(directory.resolve("multivector"), spec.multiVectorDimension())
            : null;
    this.idsInOrder = new ArrayList<>(lexical.idsInOrder());
    this.ids = new HashSet<>(idsInOrder);
    // Vectors of a batch whose texts never committed are cut off.
    if (dense != null) {
      dense.truncateTo(idsInOrder.size());
    }
    if (sparse != null) {
      sparse.truncateTo(idsInOrder.size());
    }
    if (multiVectors != null) {
      multiVectors.truncateTo(idsInOrder.size());
    }
  }

  static IndexCollection open(CollectionSpec spec, Path directory) {
    Bm25Index lexical =
        Bm25Index.open(
            directory.resolve("bm25"), LanguageAnalyzers.forLanguage(spec.language()), spec.bm25());
    DenseVectorStore dense =
        spec.denseDimension() > 0 ? DenseVectorStore.open(directory.resolve("dense"), spec.denseDimension()) : null;
    return new IndexCollection(spec, directory, lexical, dense);
  }

  public CollectionSpec spec() {
    return spec;
  }

  /** Committed documents. */
  public synchronized long size() {
    return lexical.size();
  }

  /** Validates and commits one batch; returns the committed document count. */
  public synchronized long ingest(List<IngestDocument> batch) {
    validate(batch);
    List<LexicalDocument> texts = new ArrayList<>(batch.size());
    for (IngestDocument doc : batch) {
      texts.add(new LexicalDocument(doc.id(), doc.title(), doc.text()));
    }
    if (dense != null) {
      List<float[]> vectors = new ArrayList<>(batch.size());
      for (IngestDocument doc : batch) {
        vectors.add(doc.dense());
      }
      dense.append(vectors);
      dense.commit();
    }
    if (sparse != null) {
      sparse.append(batch.stream().map(IngestDocument::sparse).toList());
      sparse.commit();
    }
    if (multiVectors != null) {
      multiVectors.append(batch.stream().map(IngestDocument::multiVector).toList());
      multiVectors.commit();
    }
    lexical.add(texts);
    lexical.commit();
    for (IngestDocument doc : batch) {
      ids.add(doc.id());
      idsInOrder.add(doc.id());
    }
    denseSearcher = null;
    sparseSearcher = null;
    maxSimSearcher = null;
    if (dense != null) {
      writeCalibration();
    }
    return lexical.size();
  }

  private void validate(List<IngestDocument> batch) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < batch.size(); i++) {
      IngestDocument doc = batch.get(i);
      String field = "documents[" + i + "]";
      if (doc.id() == null || doc.id().isBlank()) {
        throw new InvalidInputException(field + ".id", "document id must not be empty");
      }
      if (!seen.add(doc.id()) || ids.contains(doc.id())) {
        throw new InvalidInputException(
            field + ".id", "duplicate document id '" + doc.id() + "' in collection " + spec.name());
      }
      if (doc.dense() != null && spec.denseDimension() == 0) {
        throw new InvalidInputException(
            field + ".dense", "collection " + spec.name() + " stores no dense vectors");
      }
    }
    if (dense != null) {
      List<float[]> vectors = new ArrayList<>(batch.size());
      for (IngestDocument doc : batch) {
        vectors.add(doc.dense());
      }
      dense.validate(vectors, "documents[{i}].dense");
    }
    for (int i = 0; i < batch.size(); i++) {
      if (batch.get(i).sparse() != null && sparse == null) {
        throw new InvalidInputException("documents[" + i + "].sparse", "collection " + spec.name() + " stores no sparse vectors");
      }
      if (batch.get(i).multiVector() != null && multiVectors == null) {
        throw new InvalidInputException("documents[" + i + "].multi_vector", "collection " + spec.name() + " stores no multi-vectors");
      }
    }
    if (sparse != null) {
      sparse.validate(batch.stream().map(IngestDocument::sparse).toList(), "documents[{i}].sparse");
    }
    if (multiVectors != null) {
      multiVectors.validate(batch.stream().map(IngestDocument::multiVector).toList(), "documents[{i}].multi_vector");
    }
  }

  /** Learned-sparse top {@code k} with query- and document-side pruning (0 = none). */
  public List<ScoredHit> searchSparse(
      dev.tenbin.index.sparse.SparseDoc query, int maxQueryDims, int maxDocumentDims, int k, Cancellation cancellation) {
    if (sparse == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no sparse vectors");
    }
    sparse.validate(List.of(query), "queries.sparse");
    dev.tenbin.index.sparse.ImpactSearcher searcher;
    synchronized (this) {
      if (sparseSearcher == null) {
        sparseSearcher = new dev.tenbin.index.sparse.ImpactSearcher(sparse.snapshot(), idOrder());
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
  public List<ScoredHit> searchMaxSim(dev.tenbin.index.multivector.TokenVectors query, int k, Cancellation cancellation) {
    if (multiVectors == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no multi-vectors");
    }
    multiVectors.validate(List.of(query), "queries.multi_vector");
    dev.tenbin.index.multivector.MaxSimSearcher searcher;
    synchronized (this) {
      if (maxSimSearcher == null) {
        maxSimSearcher = new dev.tenbin.index.multivector.MaxSimSearcher(multiVectors.snapshot(), multiVectors.dimension(), idOrder());
      }
      searcher = maxSimSearcher;
    }
    List<ScoredHit> ranking = new ArrayList<>();
    for (var hit : searcher.search(query, k, cancellation)) {
      ranking.add(new ScoredHit(idsInOrderSnapshot(hit.ordinal()), hit.score()));
    }
    return ranking;
  }

  /** Sparse dot-product scores of a fixed candidate set (pruning applied), ordered by score, then doc id. */
  public List<ScoredHit> rescoreSparse(
      dev.tenbin.index.sparse.SparseDoc query, int maxQueryDims, int maxDocumentDims, List<String> docIds, String field) {
    if (sparse == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no sparse vectors");
    }
    sparse.validate(List.of(query), "candidates.query.sparse");
    int[] ordinals = ordinals(docIds, field);
    List<dev.tenbin.index.sparse.SparseDoc> docs = sparse.snapshot();
    dev.tenbin.index.sparse.SparseDoc q = query.pruned(maxQueryDims);
    List<ScoredHit> hits = new ArrayList<>();
    for (int i = 0; i < ordinals.length; i++) {
      dev.tenbin.index.sparse.SparseDoc doc = docs.get(ordinals[i]).pruned(maxDocumentDims);
      float score = 0;
      for (int t = 0; t < q.ids().length; t++) {
        int at = java.util.Arrays.binarySearch(doc.ids(), q.ids()[t]);
        if (at >= 0) {
          score += q.weights()[t] * doc.weights()[at];
        }
      }
      hits.add(new ScoredHit(docIds.get(i), score));
    }
    hits.sort(java.util.Comparator.comparing(ScoredHit::score, java.util.Comparator.reverseOrder()).thenComparing(ScoredHit::docId));
    return hits;
  }

  /** MaxSim scores of a fixed candidate set, ordered by score, then doc id. */
  public List<ScoredHit> rescoreMaxSim(dev.tenbin.index.multivector.TokenVectors query, List<String> docIds, String field) {
    int[] ordinals = ordinals(docIds, field);
    searchMaxSim(query, 1, Cancellation.NEVER);
    List<ScoredHit> hits = new ArrayList<>();
    for (int i = 0; i < ordinals.length; i++) {
      hits.add(new ScoredHit(docIds.get(i), maxSimSearcher.score(query, ordinals[i])));
    }
    hits.sort(java.util.Comparator.comparing(ScoredHit::score, java.util.Comparator.reverseOrder()).thenComparing(ScoredHit::docId));
    return hits;
  }

  /** ordinal → position of its id in ascending id order (the tie policy). */
  private synchronized int[] idOrder() {
    List<String> sorted = new ArrayList<>(idsInOrder);
    java.util.Map<String, Integer> position = new java.util.HashMap<>();
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
      float[] query, dev.tenbin.index.dense.DenseSearchOptions options, int k, Cancellation cancellation) {
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
      List<float[]> queries, dev.tenbin.index.dense.DenseSearchOptions options, int k, Cancellation cancellation) {
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
    float[] scores = lexical.score(queryText, ordinals, cancellation);
    List<ScoredHit> hits = new ArrayList<>(ordinals.length);
    for (int i = 0; i < ordinals.length; i++) {
      hits.add(new ScoredHit(docIds.get(i), scores[i]));
    }
    hits.sort(java.util.Comparator.comparing(ScoredHit::score, java.util.Comparator.reverseOrder()).thenComparing(ScoredHit::docId));
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

  private synchronized int[] ordinals(List<String> docIds, String field) {
    if (ordinalById == null || ordinalById.size() != idsInOrder.size()) {
      ordinalById = new java.util.HashMap<>();
      for (int i = 0; i < idsInOrder.size(); i++) {
        ordinalById.put(idsInOrder.get(i), i);
      }
    }
    int[] ordinals = new int[docIds.size()];
    for (int i = 0; i < ordinals.length; i++) {
      Integer ordinal = ordinalById.get(docIds.get(i));
      if (ordinal == null) {
        throw new InvalidInputException(field + "[" + i + "]", "unknown document id '" + docIds.get(i) + "'");
      }
      ordinals[i] = ordinal;
    }
    return ordinals;
  }

  private java.util.Map<String, Integer> ordinalById;

  /** A dense ranking and facts about its variant. */
  public record DenseRanking(
      List<ScoredHit> hits, int clippedQueryValues, int queryValues, long bytesPerVector, double approximateRecall) {}

  /**
   * Stores the int8 calibration (per-dimension corpus minimum and maximum, cosine and dot, full
   * dimension) beside the vectors after each commit, so the collection carries the exact ranges its
   * int8 codes were made with. Truncated variants are calibrated the same way on demand.
   */
  private void writeCalibration() {
    Path file = directory.resolve("dense").resolve("int8-calibration.txt");
    StringBuilder text = new StringBuilder("# Tenbin int8 calibration: corpus-only per-dimension ranges\n");
    text.append("documents=").append(idsInOrder.size()).append('\n');
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      var quantizer = denseSearcher().int8(similarity, dense.dimension());
      text.append(similarity.name().toLowerCase()).append(".min=").append(java.util.Arrays.toString(quantizer.minimums())).append('\n');
      text.append(similarity.name().toLowerCase()).append(".max=").append(java.util.Arrays.toString(quantizer.maximums())).append('\n');
    }
    try {
      Path tmp = file.resolveSibling("int8-calibration.txt.tmp");
      Files.writeString(tmp, text);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot store the int8 calibration", e);
    }
  }

  /** The int8 calibration of the full-dimension cosine variant (derived from the stored vectors). */
  public synchronized dev.tenbin.index.quantize.Int8Quantizer int8Calibration() {
    return dense == null || idsInOrder.isEmpty() ? null : denseSearcher().int8(VectorSimilarity.COSINE, dense.dimension());
  }

  private synchronized String idsInOrderSnapshot(int ordinal) {
    return idsInOrder.get(ordinal);
  }

  private synchronized DenseSearcher denseSearcher() {
    if (dense == null) {
      throw new InvalidInputException("family", "collection " + spec.name() + " stores no dense vectors");
    }
    if (denseSearcher == null) {
      denseSearcher = new DenseSearcher(dense.snapshot(), dense.dimension(), idOrder());
    }
    return denseSearcher;
  }

  /** BM25 top {@code k}: score descending, then doc id ascending. */
  public List<ScoredHit> searchBm25(String queryText, int k, Cancellation cancellation) {
    List<LexicalHit> hits = lexical.search(queryText, k, cancellation);
    List<ScoredHit> ranking = new ArrayList<>(hits.size());
    for (LexicalHit hit : hits) {
      ranking.add(new ScoredHit(hit.docId(), hit.score()));
    }
    return ranking;
  }

  public CollectionStats stats() {
    return new CollectionStats(spec, size(), bytesOnDisk());
  }

  private long bytesOnDisk() {
    try (var files = Files.walk(directory)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (java.io.IOException e) {
      return -1;
    }
  }

  @Override
  public synchronized void close() {
    lexical.close();
    if (dense != null) {
      dense.close();
    }
  }
}
