package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ReplicaRepair;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.Bm25Parameters;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchStats;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A temporary collection on the index service for one evaluation: created with a unique name,
 * filled over the streaming Ingest RPC, searched in batches, and dropped on close. With {@code
 * shards} above 1 it is a {@link ShardedCollection}: each document goes to the shard its id hashes
 * to, the shards are filled at once, and searches scatter to them and merge exactly. With {@code
 * replicas} above 1 each shard is kept on that many index collections (on distinct pods): every
 * replica is created and filled, each search asks one live replica per shard, and a replica whose
 * pod is lost is left out while its shard keeps another.
 *
 * <p>The session hands the collection to its work's searches once an ingest has committed: at that
 * point, before any search, it rebuilds the replicas lost so far (during the create or the ingest)
 * from their live peers ({@link #repairLostReplicas}), so every family's retrieval starts with
 * every replica it can have. The repair counts as indexing time. A repair never runs while an
 * ingest of the collection has not committed ({@link ShardedCollection#writing}).
 */
public final class IndexSession implements AutoCloseable {
  private static final int INGEST_BATCH = 1_000;
  private static final int SEARCH_BATCH = 200;

  /** Deadline of one call (a create, a search of {@value #SEARCH_BATCH} queries, a drop). */
  private static final long DEADLINE_SECONDS = 600;

  /** How long an ingest may go without the index acknowledging a batch. */
  private static final long INGEST_IDLE_SECONDS = 600;

  private final String name;
  private final IndexClient index;
  private final ShardedCollection collection;

  public IndexSession(IndexClient index, String language, int denseDimension) {
    this(index, language, denseDimension, 0, 0);
  }

  public IndexSession(
      IndexClient index,
      String language,
      int denseDimension,
      int sparseVocabulary,
      int multiVectorDimension) {
    this(index, language, denseDimension, sparseVocabulary, multiVectorDimension, null);
  }

  /**
   * A collection whose BM25 uses {@code bm25} (null or {@link Bm25Settings#DEFAULTS}: the service's
   * defaults, the parameters left unset).
   */
  public IndexSession(
      IndexClient index,
      String language,
      int denseDimension,
      int sparseVocabulary,
      int multiVectorDimension,
      Bm25Settings bm25) {
    this(index, language, denseDimension, sparseVocabulary, multiVectorDimension, bm25, 1);
  }

  /** As above, the collection split into {@code shards} shards. */
  public IndexSession(
      IndexClient index,
      String language,
      int denseDimension,
      int sparseVocabulary,
      int multiVectorDimension,
      Bm25Settings bm25,
      int shards) {
    this(index, language, denseDimension, sparseVocabulary, multiVectorDimension, bm25, shards, 1);
  }

  /** As above, each of the {@code shards} shards kept as {@code replicas} replicas. */
  public IndexSession(
      IndexClient index,
      String language,
      int denseDimension,
      int sparseVocabulary,
      int multiVectorDimension,
      Bm25Settings bm25,
      int shards,
      int replicas) {
    this.name = "eval-" + UUID.randomUUID();
    this.index = index.withDeadline(Duration.ofSeconds(DEADLINE_SECONDS));
    this.collection = new ShardedCollection(this.index, name, shards, replicas);
    CollectionSpec.Builder spec =
        CollectionSpec.newBuilder()
            .setName(name)
            .setLanguage(language)
            .setDenseDimension(denseDimension)
            .setSparseVocabularySize(sparseVocabulary)
            .setMultivectorDimension(multiVectorDimension);
    if (bm25 != null && !bm25.isDefault()) {
      spec.setBm25(Bm25Parameters.newBuilder().setK1(bm25.k1()).setB(bm25.b()));
    }
    collection.create(spec.build());
  }

  /** The collection's name (unique to this session). */
  public String name() {
    return name;
  }

  public long ingest(List<Document> documents) {
    return ingest(documents.iterator());
  }

  /**
   * Ingests the documents as they come, a batch of {@value #INGEST_BATCH} at a time, without a
   * deadline over the whole corpus (only an idle timeout); returns the committed count. Once every
   * replica has committed, repairs the replicas lost so far ({@link #repairLostReplicas}; nothing
   * when none is), so the searches that follow find every replica that can serve.
   */
  public long ingest(java.util.Iterator<Document> documents) {
    CollectionIngester ingester = new CollectionIngester(index, INGEST_BATCH, INGEST_IDLE_SECONDS);
    long committed;
    try (ShardedCollection.Hold writing = collection.writing()) {
      committed =
          collection.shards() == 1 && collection.replicas() == 1
              ? ingester.ingest(name, documents)
              : ShardedIngest.ingest(ingester, collection, documents);
    }
    repairLostReplicas();
    return committed;
  }

  /** The number of shards. */
  public int shards() {
    return collection.shards();
  }

  /** The number of replicas of each shard. */
  public int replicas() {
    return collection.replicas();
  }

  /** The collection as its shards and replicas (which replicas are still live). */
  public ShardedCollection collection() {
    return collection;
  }

  /**
   * Rebuilds the collection's lost replicas from their live peers and serves each again once its
   * content digest equals its peer's ({@link ReplicaRepair}): after each ingest, and between the
   * variants of a dense run. A copy fails once it makes no progress for the ingest's idle timeout.
   * The outcomes, one per lost replica (none when every one is live).
   *
   * @throws IllegalStateException while an ingest of this session has not committed
   */
  public List<ReplicaRepair.Outcome> repairLostReplicas() {
    return new ReplicaRepair(index, Duration.ofSeconds(INGEST_IDLE_SECONDS))
        .repairLostReplicas(collection);
  }

  /** Sparse rankings with a pruning setting. */
  public Map<String, List<ScoredDoc>> searchSparse(
      List<Query> queries, dev.tenbin.proto.index.v1.SparseOptions options, int topK) {
    Map<String, List<ScoredDoc>> rankings = new LinkedHashMap<>();
    for (int from = 0; from < queries.size(); from += SEARCH_BATCH) {
      SearchRequest request =
          SearchRequest.newBuilder()
              .setCollection(name)
              .setFamily(Family.FAMILY_SPARSE)
              .setTopK(topK)
              .setSparse(options)
              .addAllQueries(queries.subList(from, Math.min(queries.size(), from + SEARCH_BATCH)))
              .build();
      for (Ranking ranking : collection.search(request).getRankingsList()) {
        rankings.put(ranking.getQueryId(), toScoredDocs(ranking));
      }
    }
    return rankings;
  }

  /** Rankings per query id, in query order. */
  public Map<String, List<ScoredDoc>> search(
      Family family, List<Query> queries, DenseOptions dense, int topK) {
    return searchWithStats(family, queries, dense, topK).rankings();
  }

  /**
   * Rankings and the variant's facts (int8 clipped and saturated query values, scanned and stored
   * bytes per vector, the int8 calibration with its saturated document values).
   *
   * @param int8Calibration the int8 variant's calibration, or null
   */
  public record Outcome(
      Map<String, List<ScoredDoc>> rankings,
      long clippedQueryValues,
      long saturatedQueryValues,
      long queryValues,
      long bytesPerVector,
      long storedBytesPerVector,
      double approximateRecall,
      dev.tenbin.proto.index.v1.Int8Calibration int8Calibration,
      long saturatedDocumentValues,
      long documentValues) {}

  public Outcome searchWithStats(Family family, List<Query> queries, DenseOptions dense, int topK) {
    Map<String, List<ScoredDoc>> rankings = new LinkedHashMap<>();
    long clipped = 0;
    long saturated = 0;
    long values = 0;
    long bytes = 0;
    long stored = 0;
    double recallSum = 0;
    SearchStats last = SearchStats.getDefaultInstance();
    for (int from = 0; from < queries.size(); from += SEARCH_BATCH) {
      SearchRequest.Builder request =
          SearchRequest.newBuilder()
              .setCollection(name)
              .setFamily(family)
              .setTopK(topK)
              .addAllQueries(queries.subList(from, Math.min(queries.size(), from + SEARCH_BATCH)));
      if (dense != null) {
        request.setDense(dense);
      }
      var response = collection.search(request.build());
      for (Ranking ranking : response.getRankingsList()) {
        rankings.put(ranking.getQueryId(), toScoredDocs(ranking));
      }
      clipped += response.getStats().getClippedQueryValues();
      saturated += response.getStats().getSaturatedQueryValues();
      values += response.getStats().getQueryValues();
      bytes = response.getStats().getBytesPerVector();
      stored = response.getStats().getStoredBytesPerVector();
      last = response.getStats();
      recallSum += response.getStats().getApproximateRecall() * response.getRankingsCount();
    }
    return new Outcome(
        rankings,
        clipped,
        saturated,
        values,
        bytes,
        stored,
        queries.isEmpty() ? 0 : recallSum / queries.size(),
        last.hasInt8Calibration() ? last.getInt8Calibration() : null,
        last.getSaturatedDocumentValues(),
        last.getDocumentValues());
  }

  static List<ScoredDoc> toScoredDocs(Ranking ranking) {
    List<ScoredDoc> docs = new ArrayList<>(ranking.getDocumentsCount());
    for (ScoredDocument doc : ranking.getDocumentsList()) {
      docs.add(new ScoredDoc(doc.getDocId(), doc.getScore()));
    }
    return docs;
  }

  /** Waits between tries to drop the collection while the index is UNAVAILABLE (about 1 minute). */
  static final List<Duration> DROP_RETRY_WAITS =
      List.of(1, 2, 4, 8, 16, 30).stream().map(Duration::ofSeconds).toList();

  /**
   * Drops the collection. An index service that is UNAVAILABLE (restarting) is tried again for
   * about a minute (not while this process shuts down), and a collection already gone counts as
   * dropped (a drop whose answer was lost). Past that the evaluation's results stand and the
   * collection is left for an operator to drop, with a warning naming it.
   */
  @Override
  public void close() {
    for (int s = 0; s < collection.shards(); s++) {
      for (int r = 0; r < collection.replicas(); r++) {
        // A lost replica's pod is gone or was: one try, no minute of waiting for it.
        drop(collection.replicaName(s, r), collection.isLost(s, r));
      }
    }
  }

  private void drop(String name, boolean once) {
    org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(IndexSession.class);
    for (int attempt = 0; ; attempt++) {
      try {
        index.withDeadline(Duration.ofSeconds(60)).dropCollection(name);
        return;
      } catch (io.grpc.StatusRuntimeException e) {
        io.grpc.Status.Code code = e.getStatus().getCode();
        if (code == io.grpc.Status.Code.NOT_FOUND && attempt > 0) {
          return;
        }
        if (code != io.grpc.Status.Code.UNAVAILABLE
            || once
            || attempt >= DROP_RETRY_WAITS.size()
            || dev.tenbin.core.OrderedShutdown.isShuttingDown()) {
          log.warn("could not drop the evaluation collection {}: {}", name, code);
          return;
        }
        try {
          Thread.sleep(DROP_RETRY_WAITS.get(attempt).toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          log.warn("could not drop the evaluation collection {}: interrupted", name);
          return;
        }
      }
    }
  }
}
