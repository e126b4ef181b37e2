package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.ReplicaRepair;
import dev.tenbin.client.index.ShardedCollection;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.Bm25Parameters;
import dev.tenbin.proto.index.v1.CollectionDescription;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CollectionState;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchStats;
import dev.tenbin.scoring.metrics.ScoredDoc;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
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
  /**
   * Documents of one ingest batch, at most: a corpus slice ({@link CorpusDocuments#SLICE}), so a
   * slice commits as one batch (fewer where its documents pass {@link
   * CollectionIngester#MAX_BATCH_BYTES}) and an interrupted ingest resumes at a batch boundary.
   */
  public static final int INGEST_BATCH = CorpusDocuments.SLICE;

  private static final int SEARCH_BATCH = 200;

  /** Deadline of one call (a create, a search of {@value #SEARCH_BATCH} queries, a drop). */
  private static final long DEADLINE_SECONDS = 600;

  /** How long an ingest may go without the index acknowledging a batch. */
  private static final long INGEST_IDLE_SECONDS = 600;

  private final String name;
  private final IndexClient index;
  private final ShardedCollection collection;
  private final CollectionSpec spec;
  private final boolean resumable;
  private final java.util.function.Consumer<String> notes;

  /** Documents the collection held when this session found it (an earlier run's); -1: none. */
  private long committedBefore = -1;

  /**
   * A sharded collection an earlier run left: the documents each copy held when this session found
   * it, by shard and replica; null when none was kept.
   */
  private long[][] copiesCommittedBefore;

  /**
   * What a session's collection holds and how it is laid out: the language its BM25 field is
   * analysed in, the sizes of its vector families (0: none), its BM25 parameters (null or {@link
   * Bm25Settings#DEFAULTS}: the service's defaults, left unset) and its {@code shards} × {@code
   * replicas}.
   */
  public record Shape(
      String language,
      int denseDimension,
      int sparseVocabulary,
      int multiVectorDimension,
      Bm25Settings bm25,
      int shards,
      int replicas) {

    /** A BM25 collection in {@code language}, one shard, one replica. */
    public static Shape bm25(String language, Bm25Settings bm25) {
      return new Shape(language, 0, 0, 0, bm25, 1, 1);
    }

    /** A collection of dense vectors of {@code dimension}, one shard, one replica. */
    public static Shape dense(int dimension) {
      return new Shape("en", dimension, 0, 0, null, 1, 1);
    }

    /** A collection of sparse vectors over {@code vocabulary} terms, one shard, one replica. */
    public static Shape sparse(int vocabulary) {
      return new Shape("en", 0, vocabulary, 0, null, 1, 1);
    }

    /** A collection of multi-vectors of {@code dimension}, one shard, one replica. */
    public static Shape multiVector(int dimension) {
      return new Shape("en", 0, 0, dimension, null, 1, 1);
    }

    /** This shape split into {@code shards} shards of {@code replicas} replicas each. */
    public Shape withLayout(int shards, int replicas) {
      return new Shape(
          language, denseDimension, sparseVocabulary, multiVectorDimension, bm25, shards, replicas);
    }
  }

  /** A collection of {@code shape} named at random. */
  public IndexSession(IndexClient index, Shape shape) {
    this(index, shape, null);
  }

  /**
   * A collection of {@code shape} holding {@code content}. Inside a job's work item ({@link
   * WorkCollections#CURRENT} bound) the collection is named from the work item and the content
   * ({@link WorkCollections#name}) instead of at random, so the work item run again after its
   * process was killed finds it: a collection of that name and the same spec, every copy of every
   * shard present, is kept and its ingest resumes after the corpus slices it committed ({@link
   * #ingest(Iterator, long)}); any other of that name (another spec, a copy missing) is dropped and
   * made again.
   *
   * @param content what decides the documents ingested besides the spec (the family, the model, the
   *     corpus), or null for a collection named at random: content whose documents a run again
   *     might not make with the same bytes (vectors encoded outside the embedding cache)
   */
  public IndexSession(IndexClient index, Shape shape, String content) {
    int shards = shape.shards();
    int replicas = shape.replicas();
    Bm25Settings bm25 = shape.bm25();
    CollectionSpec.Builder builder =
        CollectionSpec.newBuilder()
            .setLanguage(shape.language())
            .setDenseDimension(shape.denseDimension())
            .setSparseVocabularySize(shape.sparseVocabulary())
            .setMultivectorDimension(shape.multiVectorDimension());
    if (bm25 != null && !bm25.isDefault()) {
      builder.setBm25(Bm25Parameters.newBuilder().setK1(bm25.k1()).setB(bm25.b()));
    }
    WorkCollections work = WorkCollections.CURRENT.get();
    this.resumable = work != null && content != null;
    this.name =
        resumable
            ? work.name(content + "\n" + describe(builder.build(), shards, replicas))
            : "eval-" + UUID.randomUUID();
    this.notes = resumable ? work.notes() : line -> {};
    this.index = index.withDeadline(Duration.ofSeconds(DEADLINE_SECONDS));
    this.collection = new ShardedCollection(this.index, name, shards, replicas);
    this.spec = builder.setName(name).build();
    if (resumable) {
      committedBefore = keepOrClear();
    }
    if (committedBefore < 0) {
      collection.create(spec);
    }
  }

  /** The spec's content, shards and replicas as one line (a part of a resumable name). */
  private static String describe(CollectionSpec spec, int shards, int replicas) {
    return String.join(
        " ",
        "language=" + spec.getLanguage(),
        "dense=" + spec.getDenseDimension(),
        "sparse=" + spec.getSparseVocabularySize(),
        "multivector=" + spec.getMultivectorDimension(),
        "bm25=" + (spec.hasBm25() ? spec.getBm25().getK1() + "/" + spec.getBm25().getB() : ""),
        "shards=" + shards,
        "replicas=" + replicas);
  }

  /**
   * What an earlier run of the work item left under this name: the committed document count of a
   * collection with this spec, kept (a sharded one's copies summed, each copy's count kept in
   * {@link #copiesCommittedBefore}); else -1, every collection of the name dropped. A sharded
   * collection is kept only whole: every copy of every shard present, READY, with this spec.
   */
  private long keepOrClear() {
    int shards = collection.shards();
    int replicas = collection.replicas();
    long[][] counts = new long[shards][replicas];
    long total = 0;
    int found = 0;
    boolean whole = true;
    for (int s = 0; s < shards; s++) {
      for (int r = 0; r < replicas; r++) {
        CollectionDescription existing = describeIfPresent(collection.replicaName(s, r));
        if (existing == null) {
          whole = false;
          continue;
        }
        found++;
        whole &= sameSpec(existing);
        counts[s][r] = existing.getDocumentCount();
        total += counts[s][r];
      }
    }
    if (found == 0) {
      return -1;
    }
    if (whole) {
      copiesCommittedBefore = shards == 1 && replicas == 1 ? null : counts;
      return total;
    }
    notes.accept(
        "the collection "
            + name
            + " an earlier run left has another spec, failed or lacks a copy; it is made again");
    for (String copy : collection.collectionNames()) {
      dropIfPresent(copy);
    }
    return -1;
  }

  private CollectionDescription describeIfPresent(String copy) {
    try {
      return index.describeCollection(copy);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  private void dropIfPresent(String copy) {
    try {
      index.dropCollection(copy);
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.NOT_FOUND) {
        throw e;
      }
    }
  }

  /** Whether an existing collection is READY with this session's spec (unset as the service's). */
  private boolean sameSpec(CollectionDescription existing) {
    CollectionSpec other = existing.getSpec();
    String language = spec.getLanguage().isEmpty() ? "en" : spec.getLanguage();
    String otherLanguage = other.getLanguage().isEmpty() ? "en" : other.getLanguage();
    Bm25Settings bm25 =
        spec.hasBm25()
            ? new Bm25Settings(spec.getBm25().getK1(), spec.getBm25().getB())
            : Bm25Settings.DEFAULTS;
    Bm25Settings otherBm25 =
        other.hasBm25()
            ? new Bm25Settings(other.getBm25().getK1(), other.getBm25().getB())
            : Bm25Settings.DEFAULTS;
    return existing.getState() == CollectionState.COLLECTION_STATE_READY
        && language.equals(otherLanguage)
        && spec.getDenseDimension() == other.getDenseDimension()
        && spec.getSparseVocabularySize() == other.getSparseVocabularySize()
        && spec.getMultivectorDimension() == other.getMultivectorDimension()
        && bm25.equals(otherBm25);
  }

  /** The collection's name (unique to this session, or to its work item and content). */
  public String name() {
    return name;
  }

  /** Ingests every document of a list; see {@link #ingest(Iterator, long)}. */
  public long ingest(List<Document> documents) {
    return ingest(documents.iterator(), documents.size());
  }

  /**
   * Ingests the documents of a corpus of unknown size: no slice an earlier run committed is kept.
   */
  public long ingest(Iterator<Document> documents) {
    return ingest(documents, -1);
  }

  /**
   * Ingests the documents as they come, a batch of {@value #INGEST_BATCH} at a time, without a
   * deadline over the whole corpus (only an idle timeout); returns the committed count. Once every
   * replica has committed, repairs the replicas lost so far ({@link #repairLostReplicas}; nothing
   * when none is), so the searches that follow find every replica that can serve.
   *
   * <p>A collection kept from an earlier run of the work item is not filled again: the whole corpus
   * slices ({@link CorpusDocuments#SLICE}) it had committed are skipped, and the ingest resumes at
   * the first slice it had not, saying so in a note. Batches commit in corpus order, so the
   * committed documents are the corpus's first ones; those of the slice the earlier run was in are
   * sent again and left as they are by the service (the same id with the same content), so no
   * document is held twice. A collection holding more documents than the corpus is made again. A
   * sharded collection resumes at the first slice holding a document that some copy of its shard
   * had not committed ({@link #resumeShards}).
   *
   * @param corpusSize the number of documents {@code documents} yields; negative when unknown (a
   *     kept collection is then made again)
   */
  public long ingest(Iterator<Document> documents, long corpusSize) {
    if (copiesCommittedBefore != null) {
      long[][] copies = copiesCommittedBefore;
      copiesCommittedBefore = null;
      committedBefore = 0;
      ShardResume resume = resumeShards(copies, documents, corpusSize);
      if (resume.complete()) {
        repairLostReplicas();
        return resume.committed();
      }
      documents = resume.remaining();
    } else {
      long skipped = resumeAt(corpusSize);
      for (long i = 0; i < skipped && documents.hasNext(); i++) {
        documents.next();
      }
    }
    // No merge into one segment at the end: for one evaluation's queries it costs more time than it
    // saves (docs/scaling.md §4).
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

  /** The corpus documents an earlier run committed in whole slices; the line saying so. */
  private long resumeAt(long corpusSize) {
    if (committedBefore <= 0) {
      return 0;
    }
    long committed = committedBefore;
    committedBefore = 0;
    if (corpusSize < 0 || committed > corpusSize) {
      remake(committed);
      return 0;
    }
    long slices = CorpusDocuments.sliceCount(corpusSize);
    long whole = committed == corpusSize ? slices : committed / CorpusDocuments.SLICE;
    long documents = Math.min(corpusSize, whole * CorpusDocuments.SLICE);
    logAndNote(ingestResumeNote(whole, slices, documents));
    return documents;
  }

  /** Logs {@code line} and adds it to the work item's notes. */
  private void logAndNote(String line) {
    org.slf4j.LoggerFactory.getLogger(IndexSession.class).info("{}: {}", name, line);
    notes.accept(line);
  }

  /**
   * Where the ingest of a sharded collection an earlier run left resumes.
   *
   * @param remaining the documents to send, from the resume point on
   * @param complete whether every copy had committed the whole corpus (nothing to send)
   * @param committed the documents the shards hold together, when complete
   */
  private record ShardResume(Iterator<Document> remaining, boolean complete, long committed) {}

  /**
   * The resume of a sharded collection: each copy (shard and replica) committed its documents in
   * corpus order, so it holds the first {@code copies[s][r]} of its shard's documents. The walk
   * stops at the first document some copy of its shard has not committed; the whole corpus slices
   * before it ({@link CorpusDocuments#SLICE}) are skipped, and the rest is sent again from the
   * start of that slice (documents a copy holds already are acknowledged and left as they are). A
   * collection holding documents that are not a part of the corpus is made again: from the start
   * when the counts tell before the walk, else the ingest fails (the walk went past the documents
   * to send) and the work item run again fills the new collection.
   */
  private ShardResume resumeShards(long[][] copies, Iterator<Document> documents, long corpusSize) {
    int shards = collection.shards();
    long[] committed = new long[shards];
    long most = 0;
    for (int s = 0; s < shards; s++) {
      committed[s] = Arrays.stream(copies[s]).min().orElse(0);
      most += Arrays.stream(copies[s]).max().orElse(0);
    }
    if (corpusSize < 0 || most > corpusSize) {
      remake(most);
      return new ShardResume(documents, false, 0);
    }
    if (most == 0) {
      return new ShardResume(documents, false, 0);
    }
    long[] seen = new long[shards];
    List<Document> slice = new ArrayList<>();
    long walked = 0;
    boolean stopped = false;
    while (documents.hasNext()) {
      Document document = documents.next();
      if (walked % CorpusDocuments.SLICE == 0) {
        slice.clear();
      }
      slice.add(document);
      walked++;
      int shard = ShardedCollection.shardOf(document.getId(), shards);
      if (seen[shard] == committed[shard]) {
        stopped = true;
        break;
      }
      seen[shard]++;
    }
    long slices = CorpusDocuments.sliceCount(corpusSize);
    if (!stopped) {
      if (!Arrays.equals(seen, committed)) {
        remake(most);
        throw new IllegalStateException(
            "the sharded collection "
                + name
                + " an earlier run left holds documents that are not a part of this corpus; it was"
                + " made again, run the work item again");
      }
      logAndNote(ingestResumeNote(slices, slices, walked));
      return new ShardResume(java.util.Collections.emptyIterator(), true, walked);
    }
    long skipped = walked - slice.size();
    logAndNote(ingestResumeNote(skipped / CorpusDocuments.SLICE, slices, skipped));
    Iterator<Document> held = slice.iterator();
    Iterator<Document> rest = documents;
    return new ShardResume(
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            return held.hasNext() || rest.hasNext();
          }

          @Override
          public Document next() {
            return held.hasNext() ? held.next() : rest.next();
          }
        },
        false,
        0);
  }

  /** Drops every copy of the collection and creates it again, saying why in a note. */
  private void remake(long held) {
    notes.accept(
        "the collection "
            + name
            + " an earlier run left holds "
            + held
            + " documents, not a part of this corpus; it is made again");
    for (String copy : collection.collectionNames()) {
      dropIfPresent(copy);
    }
    collection.create(spec);
  }

  /** The line that says where an interrupted ingest resumes ({@code committed} whole slices). */
  static String ingestResumeNote(long committed, long slices, long documents) {
    return committed == slices
        ? String.format(
            java.util.Locale.ROOT,
            "the ingest was committed before: all %d slices (%d documents)",
            slices,
            documents)
        : String.format(
            java.util.Locale.ROOT,
            "resuming the ingest at slice %d of %d; %d slices (%d documents) were committed before",
            committed + 1,
            slices,
            committed,
            documents);
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
