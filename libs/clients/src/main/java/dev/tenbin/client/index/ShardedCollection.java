package dev.tenbin.client.index;

import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.Bm25Options;
import dev.tenbin.proto.index.v1.Bm25Statistics;
import dev.tenbin.proto.index.v1.CandidateList;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.DenseOptions;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.GetDocumentsResponse;
import dev.tenbin.proto.index.v1.GetInt8CalibrationResponse;
import dev.tenbin.proto.index.v1.Int8Calibration;
import dev.tenbin.proto.index.v1.Quantization;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.RescoreResponse;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStats;
import dev.tenbin.proto.index.v1.StoredDocument;
import dev.tenbin.proto.index.v1.TermStatistics;
import dev.tenbin.rpc.StatusMapper;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One logical collection kept as {@code K} collections on the index service (its shards), each
 * document on the shard its id hashes to ({@link #shardOf}), every shard on whichever index pod
 * holds it. Searches scatter to the shards and merge, exactly:
 *
 * <ul>
 *   <li>BM25 first sums the shards' statistics (document count, total length, each query term's
 *       document and total frequencies: {@code GetTermStatistics}) and has every shard score with
 *       the sums, as Elasticsearch's DFS phase does, so a document scores as it would in one
 *       collection, bit for bit;
 *   <li>every other exact search scores each document independently of the others;
 *   <li>the shards' top {@code k} lists merge by score descending, ties by document id ascending —
 *       for BM25 in UTF-8 byte order (the index's Lucene sort), for the others in Java's string
 *       order (the vector searchers') — so the merged list is the one collection's top {@code k},
 *       tie for tie.
 * </ul>
 *
 * <p>A shard is named {@code NAME.shard-I-of-K} ({@link #shardName}); with {@code K = 1} the one
 * shard is {@code NAME} itself. Int8 searches quantize with the collection's ranges, the span of
 * the shards' ({@code GetInt8Calibration}), so they too rank as one collection. Binary codes need
 * no calibration. Approximate (HNSW) searches run per shard, their graphs built per shard; their
 * recall against the exact search is measured per shard.
 *
 * <p><b>Replicas.</b> With {@code R} replicas above 1 every shard is kept as {@code R} collections
 * holding the same documents, ingested the same way: replica J of shard I is {@code
 * NAME.shard-I-of-K.replica-J-of-R} ({@code NAME.replica-J-of-R} with one shard, {@link
 * #replicaName}), placed on rank I + J of {@code NAME}'s rendezvous ranking ({@link Copy#rank}), so
 * the R replicas of a shard are on R distinct pods when there are at least R. Creating and
 * ingesting go to every replica; a read (search, rescore, statistics, calibration, documents, a
 * description) goes to one live replica of each shard, taken in turn. A replica whose call fails
 * with UNAVAILABLE or DEADLINE_EXCEEDED (its pod gone, draining or hung), or CANCELLED by its
 * server ({@link #losesReplica}), is left out ({@link #lose}; logged once) and the call is made
 * again on another replica of the shard: a pod that comes back with a partial or stale copy does
 * not answer again until the replica is rebuilt from a live peer and its content digest equals the
 * peer's ({@link ReplicaRepair}, which then {@link #readmit readmits} it). Only when every replica
 * of a shard is lost does a call fail, with UNAVAILABLE naming the shard. With one replica nothing
 * is left out and failures pass through as they are. A repair never runs while the collection is
 * being written: a write (create, ingest) holds {@link #writing} until it has committed, a repair
 * {@link #repairing}, and the two exclude each other.
 */
public final class ShardedCollection {
  private static final Logger LOG = LoggerFactory.getLogger(ShardedCollection.class);

  private static final Pattern SHARD = Pattern.compile("(.+)\\.shard-(\\d+)-of-(\\d+)");
  private static final Pattern REPLICA = Pattern.compile("(.+)\\.replica-(\\d+)-of-(\\d+)");

  /** A GetDocuments field naming one id: {@code ids[J]}. */
  private static final Pattern ID_FIELD = Pattern.compile("ids\\[(\\d{1,9})\\]");

  /** The most shards a collection may be split into. */
  public static final int MAX_SHARDS = 64;

  /** The most replicas a shard may have. */
  public static final int MAX_REPLICAS = 8;

  /** A dense search's rescore depth when it gives none (the index service's default). */
  private static final int DEFAULT_RESCORE_DEPTH = 100;

  private final IndexClient index;
  private final String name;
  private final int shards;
  private final int replicas;

  /** Per shard and replica: the failure that left the replica out, null while it is live. */
  private final StatusRuntimeException[][] lost;

  /** Per shard: the reads sent so far, which pick the replica of the next one in turn. */
  private final AtomicInteger[] turns;

  /** Writes (create, ingest) of the collection under way ({@link #writing}). */
  private int writes;

  /** Repairs of the collection's replicas under way ({@link #repairing}). */
  private int repairs;

  /** Time spent asking the shards for collection-wide statistics and ranges ({@link #plan}). */
  private final LongAdder statisticsNanos = new LongAdder();

  /** Time spent merging the shards' lists ({@link #finishSearch}). */
  private final LongAdder mergeNanos = new LongAdder();

  /**
   * @param index the index client (its channel routes each shard to its pod)
   * @param name the logical collection's name
   * @param shards the number of shards, at least 1
   */
  public ShardedCollection(IndexClient index, String name, int shards) {
    this(index, name, shards, 1);
  }

  /**
   * @param index the index client (its channel routes each replica of each shard to its pod)
   * @param name the logical collection's name
   * @param shards the number of shards, at least 1
   * @param replicas the copies of each shard, 1..{@value #MAX_REPLICAS}
   */
  public ShardedCollection(IndexClient index, String name, int shards, int replicas) {
    if (shards < 1) {
      throw new IllegalArgumentException("a collection has at least one shard, got " + shards);
    }
    if (replicas < 1 || replicas > MAX_REPLICAS) {
      throw new IllegalArgumentException(
          "a shard has 1.." + MAX_REPLICAS + " replicas, got " + replicas);
    }
    this.index = index;
    this.name = name;
    this.shards = shards;
    this.replicas = replicas;
    this.lost = new StatusRuntimeException[shards][replicas];
    this.turns = new AtomicInteger[shards];
    for (int s = 0; s < shards; s++) {
      turns[s] = new AtomicInteger();
    }
  }

  /** The name of shard {@code shard} of {@code shards} of the collection {@code name}. */
  public static String shardName(String name, int shard, int shards) {
    if (shard < 0 || shard >= shards) {
      throw new IllegalArgumentException("shard " + shard + " of " + shards);
    }
    return shards == 1 ? name : name + ".shard-" + shard + "-of-" + shards;
  }

  /**
   * A shard name's parts.
   *
   * @param collection the logical collection
   * @param shard the shard's number, from 0
   * @param shards how many shards the collection has
   */
  public record Shard(String collection, int shard, int shards) {
    /** The parts of {@code name} when it names a shard of a sharded collection. */
    public static Optional<Shard> of(String name) {
      Matcher matcher = SHARD.matcher(name);
      if (!matcher.matches()) {
        return Optional.empty();
      }
      try {
        int shard = Integer.parseInt(matcher.group(2));
        int shards = Integer.parseInt(matcher.group(3));
        return shard < shards && shards > 1
            ? Optional.of(new Shard(matcher.group(1), shard, shards))
            : Optional.empty();
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
  }

  /**
   * The name of replica {@code replica} of {@code replicas} of shard {@code shard} of {@code
   * shards} of the collection {@code name}: the shard's name itself with one replica, else the
   * shard's name followed by {@code .replica-J-of-R}.
   */
  public static String replicaName(String name, int shard, int shards, int replica, int replicas) {
    if (replica < 0 || replica >= replicas) {
      throw new IllegalArgumentException("replica " + replica + " of " + replicas);
    }
    String shardName = shardName(name, shard, shards);
    return replicas == 1 ? shardName : shardName + ".replica-" + replica + "-of-" + replicas;
  }

  /**
   * What an index collection's name says about where it is placed: the logical collection it
   * belongs to, its shard and its replica ({@code 0 of 1} for a plain name).
   *
   * @param collection the logical collection (the placement's key)
   * @param shard the shard's number, from 0
   * @param shards how many shards the collection has
   * @param replica the replica's number, from 0
   * @param replicas how many replicas each shard has
   */
  public record Copy(String collection, int shard, int shards, int replica, int replicas) {
    /** The parts of any collection name; a name without shard or replica suffix is its own. */
    public static Copy of(String name) {
      String shardName = name;
      int replica = 0;
      int replicas = 1;
      Matcher matcher = REPLICA.matcher(name);
      if (matcher.matches()) {
        try {
          int j = Integer.parseInt(matcher.group(2));
          int r = Integer.parseInt(matcher.group(3));
          if (j < r && r > 1) {
            shardName = matcher.group(1);
            replica = j;
            replicas = r;
          }
        } catch (NumberFormatException e) {
          // Not a replica's name: the name is its own collection.
        }
      }
      String base = shardName;
      int j = replica;
      int r = replicas;
      return Shard.of(shardName)
          .map(shard -> new Copy(shard.collection(), shard.shard(), shard.shards(), j, r))
          .orElseGet(() -> new Copy(base, 0, 1, j, r));
    }

    /**
     * The rank, in the rendezvous ranking of {@link #collection}, of the pod this copy lives on:
     * shard + replica. The R replicas of a shard take R consecutive ranks, so they are on R
     * distinct pods while there are at least R pods (with fewer, the ranks wrap around and some
     * replicas share a pod); replica 0 of shard I is where the unreplicated shard I would be.
     */
    public int rank() {
      return shard + replica;
    }
  }

  /**
   * The shard of a document: its id's UTF-8 bytes hashed (64-bit FNV-1a), modulo {@code shards}.
   * Stable across processes and releases: a document always lives on the same shard.
   */
  public static int shardOf(String documentId, int shards) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : documentId.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return (int) Long.remainderUnsigned(hash, shards);
  }

  public String name() {
    return name;
  }

  public int shards() {
    return shards;
  }

  public int replicas() {
    return replicas;
  }

  /** The shards' names, in shard order (each its collection's name when there is one replica). */
  public List<String> shardNames() {
    List<String> names = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      names.add(shardName(name, s, shards));
    }
    return names;
  }

  /** The index collection of replica {@code replica} of shard {@code shard}. */
  public String replicaName(int shard, int replica) {
    return replicaName(name, shard, shards, replica, replicas);
  }

  /** Every index collection of the collection: each shard's replicas, in shard order. */
  public List<String> collectionNames() {
    List<String> names = new ArrayList<>(shards * replicas);
    for (int s = 0; s < shards; s++) {
      for (int r = 0; r < replicas; r++) {
        names.add(replicaName(s, r));
      }
    }
    return names;
  }

  /** Whether replica {@code replica} of shard {@code shard} was left out ({@link #lose}). */
  public synchronized boolean isLost(int shard, int replica) {
    return lost[shard][replica] != null;
  }

  /** The replicas of shard {@code shard} still live, in replica order. */
  public synchronized List<Integer> liveReplicas(int shard) {
    List<Integer> live = new ArrayList<>(replicas);
    for (int r = 0; r < replicas; r++) {
      if (lost[shard][r] == null) {
        live.add(r);
      }
    }
    return live;
  }

  /**
   * Whether {@code failure} of a call to one replica means its pod is gone, so another replica
   * should answer: UNAVAILABLE (the pod unreachable, stopping, or its connection lost),
   * DEADLINE_EXCEEDED (a pod that stopped answering), or CANCELLED when this process did not cancel
   * (a server stopped at once ends its open calls with RST_STREAM CANCEL). Always false with one
   * replica: then failures pass through as they are.
   */
  public boolean losesReplica(StatusRuntimeException failure) {
    if (replicas == 1) {
      return false;
    }
    return switch (failure.getStatus().getCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED -> true;
      case CANCELLED ->
          !(failure.getCause() instanceof InterruptedException)
              && !Thread.currentThread().isInterrupted()
              && !Context.current().isCancelled();
      default -> false;
    };
  }

  /**
   * Leaves replica {@code replica} of shard {@code shard} out (logged once), because of {@code
   * failure}, until it is {@link #readmit readmitted}.
   *
   * @throws StatusRuntimeException UNAVAILABLE naming the shard when it has no replica left
   */
  public void lose(int shard, int replica, StatusRuntimeException failure) {
    boolean first;
    synchronized (this) {
      first = lost[shard][replica] == null;
      if (first) {
        lost[shard][replica] = failure;
      }
    }
    if (first) {
      LOG.warn(
          "leaving out replica {} of {} of shard {} of {} ({}) until it is rebuilt: {}",
          replica,
          replicas,
          shard,
          shards,
          replicaName(shard, replica),
          describe(failure));
    }
    if (liveReplicas(shard).isEmpty()) {
      throw everyReplicaLost(shard);
    }
  }

  /**
   * Serves replica {@code replica} of shard {@code shard} again after it was left out: for {@link
   * ReplicaRepair} once the replica was rebuilt from a live peer and its content digest equals the
   * peer's. Logged. Call it only under a {@link #repairing} hold, which keeps writes (create,
   * ingest) of this collection out, so that the replica misses none.
   *
   * @return whether the replica was lost (false: it was live, nothing changed)
   */
  public boolean readmit(int shard, int replica) {
    StatusRuntimeException failure;
    synchronized (this) {
      failure = lost[shard][replica];
      lost[shard][replica] = null;
    }
    if (failure != null) {
      LOG.info(
          "serving replica {} of {} of shard {} of {} ({}) again",
          replica,
          replicas,
          shard,
          shards,
          replicaName(shard, replica));
    }
    return failure != null;
  }

  /** A write or a repair of the collection under way, until it is closed. */
  public interface Hold extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Marks a write of the collection (a create, an ingest) under way until the returned hold is
   * closed, once the write has committed or failed. While one is, {@link #repairing} refuses: a
   * replica copied from a peer still being written would miss what the peer receives after the copy
   * and then be readmitted. A write waits for a repair under way to end first, so that a replica
   * the repair readmits receives the write too.
   */
  public Hold writing() {
    synchronized (this) {
      while (repairs > 0) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw Status.CANCELLED
              .withDescription(
                  "interrupted while waiting for the repair of " + name + " to end before writing")
              .withCause(e)
              .asRuntimeException();
        }
      }
      writes++;
    }
    return () -> {
      synchronized (this) {
        writes--;
        notifyAll();
      }
    };
  }

  /**
   * Marks a repair of the collection's replicas ({@link ReplicaRepair}) under way until the
   * returned hold is closed; writes started meanwhile wait for it to end ({@link #writing}).
   *
   * @throws IllegalStateException while a write of the collection is under way (the collection is
   *     still being filled): its lost replicas are repaired once the write has committed
   */
  public Hold repairing() {
    synchronized (this) {
      if (writes > 0) {
        throw new IllegalStateException(
            "cannot repair the replicas of "
                + name
                + " while it is being written ("
                + writes
                + " create or ingest not yet committed): a replica copied from a peer still being"
                + " written would miss the rest; repair once the ingest has committed");
      }
      repairs++;
    }
    return () -> {
      synchronized (this) {
        repairs--;
        notifyAll();
      }
    };
  }

  /** A failure's code and description, without its cause's stack. */
  private static String describe(StatusRuntimeException failure) {
    Status status = failure.getStatus();
    return status.getDescription() == null
        ? status.getCode().toString()
        : status.getCode() + " " + status.getDescription();
  }

  /** UNAVAILABLE: shard {@code shard} has no live replica, each replica's failure named. */
  private synchronized StatusRuntimeException everyReplicaLost(int shard) {
    StringBuilder why = new StringBuilder();
    for (int r = 0; r < replicas; r++) {
      why.append(r == 0 ? "" : "; ")
          .append(replicaName(shard, r))
          .append(": ")
          .append(lost[shard][r] == null ? "live" : describe(lost[shard][r]));
    }
    return Status.UNAVAILABLE
        .withDescription(
            "every replica of shard "
                + shard
                + " of "
                + shards
                + " of the collection "
                + name
                + " is lost ("
                + why
                + ")")
        .withCause(lost[shard][replicas - 1])
        .asRuntimeException();
  }

  /**
   * {@code call} on one live replica of shard {@code shard} (given the replica's collection name),
   * the replicas taken in turn from one read to the next; a replica lost on the way ({@link
   * #losesReplica}) is left out and the call made on the next live one.
   *
   * @throws StatusRuntimeException the call's failure when it does not lose a replica, or
   *     UNAVAILABLE once the shard has no replica left
   */
  public <T> T onReplica(int shard, Function<String, T> call) {
    if (replicas == 1) {
      return call.apply(replicaName(shard, 0));
    }
    int turn = turns[shard].getAndIncrement();
    while (true) {
      List<Integer> live = liveReplicas(shard);
      if (live.isEmpty()) {
        throw everyReplicaLost(shard);
      }
      int replica = live.get(Math.floorMod(turn, live.size()));
      try {
        return call.apply(replicaName(shard, replica));
      } catch (StatusRuntimeException failure) {
        if (!losesReplica(failure)) {
          throw failure;
        }
        lose(shard, replica, failure);
      }
    }
  }

  /**
   * The live replica of shard {@code shard} the next read goes to, the replicas taken in turn.
   *
   * @throws StatusRuntimeException UNAVAILABLE naming the shard when it has no replica left
   */
  int nextLiveReplica(int shard) {
    List<Integer> live = liveReplicas(shard);
    if (live.isEmpty()) {
      throw everyReplicaLost(shard);
    }
    return live.get(Math.floorMod(turns[shard].getAndIncrement(), live.size()));
  }

  /**
   * A stream of searches of this collection, one request at a time or pipelined, each answered as
   * {@link #search} answers it ({@link ShardedSearchStream}); its deadline is {@code deadline}.
   */
  public ShardedSearchStream searchStream(Deadline deadline) {
    return new ShardedSearchStream(this, index, deadline);
  }

  /**
   * {@code call} on every live replica of every shard (a write: create); a replica lost on the way
   * is left out, as long as its shard keeps one.
   */
  private void onEveryReplica(Consumer<String> call) {
    for (int s = 0; s < shards; s++) {
      for (int r = 0; r < replicas; r++) {
        if (isLost(s, r)) {
          continue;
        }
        try {
          call.accept(replicaName(s, r));
        } catch (StatusRuntimeException failure) {
          if (!losesReplica(failure)) {
            throw failure;
          }
          lose(s, r, failure);
        }
      }
    }
  }

  /** Creates every replica of every shard with {@code spec} (its name replaced by the copy's). */
  public void create(CollectionSpec spec) {
    try (Hold writing = writing()) {
      onEveryReplica(
          copy ->
              index.createCollection(
                  CreateCollectionRequest.newBuilder()
                      .setSpec(spec.toBuilder().setName(copy))
                      .build()));
    }
  }

  /** Drops every replica of every shard, the lost ones too. */
  public void drop() {
    for (String copy : collectionNames()) {
      index.dropCollection(copy);
    }
  }

  /** The documents the shards hold together. */
  public long documentCount() {
    long count = 0;
    for (int s = 0; s < shards; s++) {
      count += onReplica(s, copy -> index.describeCollection(copy)).getDocumentCount();
    }
    return count;
  }

  /**
   * The collection's BM25 statistics for {@code texts}: the sums of the shards' (what each shard
   * then scores with).
   */
  public Bm25Statistics termStatistics(List<String> texts) {
    Bm25Statistics.Builder sum = Bm25Statistics.newBuilder();
    Map<String, long[]> terms = new LinkedHashMap<>();
    for (Bm25Statistics part :
        onEveryShard(s -> onReplica(s, copy -> index.termStatistics(copy, texts)))) {
      sum.setMaxDocuments(sum.getMaxDocuments() + part.getMaxDocuments())
          .setDocumentCount(sum.getDocumentCount() + part.getDocumentCount())
          .setTotalTermCount(sum.getTotalTermCount() + part.getTotalTermCount())
          .setTotalDocumentFrequency(
              sum.getTotalDocumentFrequency() + part.getTotalDocumentFrequency());
      for (TermStatistics term : part.getTermsList()) {
        long[] both = terms.computeIfAbsent(term.getTerm(), t -> new long[2]);
        both[0] += term.getDocumentFrequency();
        both[1] += term.getTotalTermFrequency();
      }
    }
    terms.forEach(
        (term, both) ->
            sum.addTerms(
                TermStatistics.newBuilder()
                    .setTerm(term)
                    .setDocumentFrequency(both[0])
                    .setTotalTermFrequency(both[1])));
    return sum.build();
  }

  /**
   * The collection's int8 ranges for the dense variant (similarity, truncation) of {@code dense}:
   * per dimension the smallest minimum and the largest maximum of the shards' ranges, shards
   * without documents left out, which is what one collection of all the documents computes. Absent
   * when no shard holds a document.
   */
  public Optional<Int8Calibration> int8Calibration(DenseOptions dense) {
    float[] min = null;
    float[] max = null;
    List<GetInt8CalibrationResponse> parts =
        onEveryShard(s -> onReplica(s, copy -> index.int8Calibration(copy, dense)));
    for (int s = 0; s < shards; s++) {
      GetInt8CalibrationResponse part = parts.get(s);
      String shard = shardName(s);
      if (part.getDocuments() == 0 || !part.hasCalibration()) {
        continue;
      }
      Int8Calibration ranges = part.getCalibration();
      if (min == null) {
        min = new float[ranges.getMinimumsCount()];
        max = new float[ranges.getMaximumsCount()];
        for (int d = 0; d < min.length; d++) {
          min[d] = ranges.getMinimums(d);
          max[d] = ranges.getMaximums(d);
        }
        continue;
      }
      if (ranges.getMinimumsCount() != min.length || ranges.getMaximumsCount() != max.length) {
        throw new IllegalStateException(
            "shard "
                + shard
                + " has "
                + ranges.getMinimumsCount()
                + " dimensions, not "
                + min.length);
      }
      for (int d = 0; d < min.length; d++) {
        min[d] = Math.min(min[d], ranges.getMinimums(d));
        max[d] = Math.max(max[d], ranges.getMaximums(d));
      }
    }
    if (min == null) {
      return Optional.empty();
    }
    Int8Calibration.Builder span = Int8Calibration.newBuilder();
    for (int d = 0; d < min.length; d++) {
      span.addMinimums(min[d]).addMaximums(max[d]);
    }
    return Optional.of(span.build());
  }

  /**
   * {@code dense} with the collection's int8 ranges when it asks for int8 and gives none, so every
   * shard quantizes as one collection would; otherwise {@code dense} itself.
   */
  private DenseOptions withCollectionCalibration(DenseOptions dense) {
    if (dense.getQuantization() != Quantization.QUANTIZATION_INT8 || dense.hasInt8Calibration()) {
      return dense;
    }
    return int8Calibration(dense)
        .map(ranges -> dense.toBuilder().setInt8Calibration(ranges).build())
        .orElse(dense);
  }

  /**
   * How a search of the logical collection runs on the shards ({@link #plan}).
   *
   * @param request the search as the caller gave it (naming the logical collection)
   * @param perShard what every shard is asked (its collection replaced by the copy's name): with
   *     the collection's BM25 statistics or int8 ranges, and for a two-stage search the quantized
   *     first stage to the whole collection's shortlist depth
   * @param twoStage the dense options of a quantized first stage re-scored in float, whose
   *     shortlist is then re-scored on the shards ({@link #finishSearch}); null for one stage
   */
  public record SearchPlan(SearchRequest request, SearchRequest perShard, DenseOptions twoStage) {}

  /**
   * What each shard is asked for {@code request} (a search of the logical collection): with one
   * shard the request itself; with several, the collection-wide BM25 statistics and int8 ranges
   * added and a re-scored quantized search split into its two stages. Asks the shards for the
   * statistics or ranges it needs.
   */
  public SearchPlan plan(SearchRequest request) {
    if (shards == 1) {
      return new SearchPlan(request, request, null);
    }
    SearchRequest.Builder shared = request.toBuilder();
    long start = System.nanoTime();
    if (request.getFamily() == Family.FAMILY_BM25 && !request.getBm25().hasStatistics()) {
      shared.setBm25(
          Bm25Options.newBuilder()
              .setStatistics(
                  termStatistics(request.getQueriesList().stream().map(Query::getText).toList())));
    }
    if (request.getFamily() == Family.FAMILY_DENSE && request.hasDense()) {
      shared.setDense(withCollectionCalibration(request.getDense()));
    }
    statisticsNanos.add(System.nanoTime() - start);
    if (request.getFamily() == Family.FAMILY_DENSE && request.hasDense()) {
      if (request.getDense().getApproximate()) {
        // The shards' exact lists merge into the whole collection's exact top-k, against which
        // the merged approximate ranking's recall is measured (see merge).
        shared.setDense(shared.getDense().toBuilder().setExactRankings(true));
      }
      // A top_k below 1 goes to the shards as it is, for them to refuse it naming top_k.
      if (twoStage(request.getDense()) && request.getTopK() > 0) {
        DenseOptions dense = shared.getDense();
        int depth =
            Math.max(
                request.getTopK(),
                dense.getRescoreDepth() <= 0 ? DEFAULT_RESCORE_DEPTH : dense.getRescoreDepth());
        return new SearchPlan(
            request,
            shared.setTopK(depth).setDense(dense.toBuilder().setRescore(false)).build(),
            dense);
      }
    }
    return new SearchPlan(request, shared.build(), null);
  }

  /**
   * Searches every shard and merges each query's rankings into the collection's top {@code top_k};
   * {@code request} names the logical collection.
   */
  public SearchResponse search(SearchRequest request) {
    if (shards == 1) {
      return onReplica(0, copy -> index.search(request.toBuilder().setCollection(copy).build()));
    }
    SearchPlan plan = plan(request);
    List<SearchResponse> parts =
        onEveryShard(
            s ->
                onReplica(
                    s,
                    copy -> index.search(plan.perShard().toBuilder().setCollection(copy).build())));
    return finishSearch(plan, parts);
  }

  /**
   * The search's answer from the shards' answers to {@link SearchPlan#perShard} (in shard order):
   * each query's lists merged into the collection's top {@code top_k}, and for a two-stage search
   * the merged shortlist re-scored on the shards (one {@link #rescore}) and cut to {@code top_k}.
   */
  public SearchResponse finishSearch(SearchPlan plan, List<SearchResponse> parts) {
    if (shards == 1) {
      return parts.getFirst();
    }
    SearchRequest request = plan.request();
    long start = System.nanoTime();
    SearchResponse merged =
        merge(
            request,
            parts,
            plan.twoStage() == null ? request.getTopK() : plan.perShard().getTopK());
    mergeNanos.add(System.nanoTime() - start);
    return plan.twoStage() == null ? merged : rescoreShortlists(request, plan.twoStage(), merged);
  }

  /**
   * What the scatter has cost the client so far, summed over every search of this object: the
   * statistics phase (collection-wide BM25 statistics, int8 ranges) and the merge of the shards'
   * lists. Zero with one shard, which neither asks nor merges.
   *
   * @param statisticsNanos asking the shards for statistics and ranges before the searches
   * @param mergeNanos merging the shards' answers into the collection's lists
   */
  public record ScatterCost(long statisticsNanos, long mergeNanos) {
    /** This cost less an earlier reading of it: what was spent in between. */
    public ScatterCost since(ScatterCost earlier) {
      return new ScatterCost(
          statisticsNanos - earlier.statisticsNanos, mergeNanos - earlier.mergeNanos);
    }
  }

  /** The scatter's cost so far ({@link ScatterCost}). */
  public ScatterCost scatterCost() {
    return new ScatterCost(statisticsNanos.sum(), mergeNanos.sum());
  }

  /**
   * A quantized first stage whose shortlist is re-scored in float: the shortlist must be the whole
   * collection's, not each shard's, so it is drawn and re-scored in two steps.
   */
  private static boolean twoStage(DenseOptions dense) {
    return dense.getRescore()
        && !dense.getApproximate()
        && (dense.getQuantization() == Quantization.QUANTIZATION_INT8
            || dense.getQuantization() == Quantization.QUANTIZATION_BINARY);
  }

  /**
   * The second of the two stages as one collection runs them: the quantized top max(k,
   * rescore_depth) of the whole collection ({@code shortlists}, the merge of the shards' quantized
   * top lists) re-scored in float on their shards and merged, the best {@code top_k} kept.
   */
  private SearchResponse rescoreShortlists(
      SearchRequest request, DenseOptions dense, SearchResponse shortlists) {
    RescoreRequest.Builder second =
        RescoreRequest.newBuilder()
            .setCollection(name)
            .setFamily(Family.FAMILY_DENSE)
            .setDense(
                dense.toBuilder()
                    .setQuantization(Quantization.QUANTIZATION_NONE)
                    .setRescore(false)
                    .clearInt8Calibration());
    for (int q = 0; q < request.getQueriesCount(); q++) {
      CandidateList.Builder list = CandidateList.newBuilder().setQuery(request.getQueries(q));
      for (ScoredDocument document : shortlists.getRankings(q).getDocumentsList()) {
        list.addDocIds(document.getDocId());
      }
      second.addCandidates(list);
    }
    RescoreResponse rescored = rescore(second.build());
    SearchResponse.Builder merged = SearchResponse.newBuilder();
    for (int q = 0; q < request.getQueriesCount(); q++) {
      Ranking ranking = rescored.getRankings(q);
      merged.addRankings(
          ranking.toBuilder()
              .clearDocuments()
              .addAllDocuments(
                  ranking
                      .getDocumentsList()
                      .subList(0, Math.min(request.getTopK(), ranking.getDocumentsCount()))));
    }
    int dims =
        dense.getTruncateDimensions() > 0
            ? dense.getTruncateDimensions()
            : request.getQueries(0).getDense().getValuesCount();
    SearchStats stats = shortlists.getStats();
    return merged
        .setStats(
            stats.toBuilder()
                .setSearchNanos(stats.getSearchNanos() + rescored.getStats().getSearchNanos())
                // What the variant keeps: the first stage's codes and the float vectors.
                .setStoredBytesPerVector(stats.getBytesPerVector() + 4L * dims))
        .build();
  }

  /**
   * The shards' answers to {@code request} merged, each query's top {@code k} kept. For an
   * approximate search the shards' exact lists are merged too, into the whole collection's exact
   * top {@code k}, and the recall reported is the merged approximate ranking's against it (returned
   * too when the request asked for {@code exact_rankings}).
   */
  private SearchResponse merge(SearchRequest request, List<SearchResponse> parts, int k) {
    Comparator<ScoredDocument> order = order(request.getFamily());
    SearchResponse.Builder merged = SearchResponse.newBuilder();
    boolean exactLists =
        parts.stream().allMatch(part -> part.getExactRankingsCount() == request.getQueriesCount());
    List<Ranking> exact = new ArrayList<>();
    for (int q = 0; q < request.getQueriesCount(); q++) {
      String queryId = parts.getFirst().getRankings(q).getQueryId();
      merged.addRankings(merge(queryId, lists(parts, SearchResponse::getRankings, q), order, k));
      if (exactLists) {
        exact.add(merge(queryId, lists(parts, SearchResponse::getExactRankings, q), order, k));
      }
    }
    SearchStats stats = stats(parts.stream().map(SearchResponse::getStats).toList());
    if (exactLists && request.getQueriesCount() > 0) {
      stats =
          stats.toBuilder()
              .setApproximateRecall(meanRecall(merged.getRankingsList(), exact))
              .build();
    }
    if (request.getDense().getExactRankings()) {
      merged.addAllExactRankings(exact);
    }
    return merged.setStats(stats).build();
  }

  /** Query {@code q}'s list of each shard, as {@code rankings} picks it from the shard's answer. */
  private static List<List<ScoredDocument>> lists(
      List<SearchResponse> parts, BiFunction<SearchResponse, Integer, Ranking> rankings, int q) {
    List<List<ScoredDocument>> lists = new ArrayList<>(parts.size());
    for (SearchResponse part : parts) {
      lists.add(rankings.apply(part, q).getDocumentsList());
    }
    return lists;
  }

  /**
   * Mean over the queries of |found ∩ exact| / |exact|, a query whose exact list is empty counting
   * 1: the measure each shard reports for its own lists, taken over the merged ones.
   */
  static double meanRecall(List<Ranking> found, List<Ranking> exact) {
    double sum = 0;
    for (int q = 0; q < exact.size(); q++) {
      Set<String> truth = new HashSet<>();
      exact.get(q).getDocumentsList().forEach(doc -> truth.add(doc.getDocId()));
      long hits =
          found.get(q).getDocumentsList().stream()
              .filter(doc -> truth.contains(doc.getDocId()))
              .count();
      sum += truth.isEmpty() ? 1.0 : (double) hits / truth.size();
    }
    return sum / exact.size();
  }

  /**
   * Rescores fixed candidate lists: each candidate on its own shard (BM25 with the collection's
   * statistics), the lists merged back into one ranking per query.
   */
  public RescoreResponse rescore(RescoreRequest request) {
    if (shards == 1) {
      return onReplica(0, copy -> index.rescore(request.toBuilder().setCollection(copy).build()));
    }
    RescoreRequest.Builder shared = request.toBuilder();
    if (request.getFamily() == Family.FAMILY_BM25 && !request.getBm25().hasStatistics()) {
      shared.setBm25(
          Bm25Options.newBuilder()
              .setStatistics(
                  termStatistics(
                      request.getCandidatesList().stream()
                          .map(list -> list.getQuery().getText())
                          .toList())));
    }
    if (request.getFamily() == Family.FAMILY_DENSE && request.hasDense()) {
      shared.setDense(withCollectionCalibration(request.getDense()));
      if (request.getDense().getApproximate()) {
        // The shards' exact lists merge into the whole collection's exact top-k, against which
        // the merged approximate ranking's recall is measured (see merge).
        shared.setDense(shared.getDense().toBuilder().setExactRankings(true));
      }
    }
    List<RescoreRequest> requests = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      RescoreRequest.Builder part = shared.clone().setCollection(shardName(name, s, shards));
      part.clearCandidates();
      for (CandidateList list : request.getCandidatesList()) {
        CandidateList.Builder mine = list.toBuilder().clearDocIds();
        for (String id : list.getDocIdsList()) {
          if (shardOf(id, shards) == s) {
            mine.addDocIds(id);
          }
        }
        part.addCandidates(mine);
      }
      requests.add(part.build());
    }
    List<RescoreResponse> parts =
        onEveryShard(
            s ->
                onReplica(
                    s,
                    copy ->
                        index.rescore(requests.get(s).toBuilder().setCollection(copy).build())));
    Comparator<ScoredDocument> order = order(request.getFamily());
    RescoreResponse.Builder merged = RescoreResponse.newBuilder();
    for (int q = 0; q < request.getCandidatesCount(); q++) {
      List<List<ScoredDocument>> lists = new ArrayList<>(shards);
      for (RescoreResponse part : parts) {
        lists.add(part.getRankings(q).getDocumentsList());
      }
      merged.addRankings(
          merge(
              parts.getFirst().getRankings(q).getQueryId(),
              lists,
              order,
              request.getCandidates(q).getDocIdsCount()));
    }
    return merged.setStats(stats(parts.stream().map(RescoreResponse::getStats).toList())).build();
  }

  /**
   * Stored documents by id, in request order, each fetched from its shard. A shard's refusal of an
   * id ({@code ids[j]} of its own call) names the id's place in {@code request}.
   */
  public GetDocumentsResponse getDocuments(GetDocumentsRequest request) {
    if (shards == 1) {
      return onReplica(
          0, copy -> index.getDocuments(request.toBuilder().setCollection(copy).build()));
    }
    List<List<String>> ids = new ArrayList<>(shards);
    List<List<Integer>> positions = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      ids.add(new ArrayList<>());
      positions.add(new ArrayList<>());
    }
    for (int i = 0; i < request.getIdsCount(); i++) {
      int shard = shardOf(request.getIds(i), shards);
      ids.get(shard).add(request.getIds(i));
      positions.get(shard).add(i);
    }
    Map<String, StoredDocument> found = new HashMap<>();
    for (GetDocumentsResponse part :
        onEveryShard(
            s ->
                ids.get(s).isEmpty()
                    ? GetDocumentsResponse.getDefaultInstance()
                    : documentsOfShard(s, ids.get(s), positions.get(s)))) {
      part.getDocumentsList().forEach(doc -> found.put(doc.getId(), doc));
    }
    GetDocumentsResponse.Builder out = GetDocumentsResponse.newBuilder();
    for (String id : request.getIdsList()) {
      StoredDocument document = found.get(id);
      if (document == null) {
        throw Status.INTERNAL
            .withDescription(
                "shard " + shardName(shardOf(id, shards)) + " did not return document " + id)
            .asRuntimeException();
      }
      out.addDocuments(document);
    }
    return out.build();
  }

  /**
   * The documents {@code ids} of shard {@code shard}; a refusal naming {@code ids[j]} is named
   * {@code ids[positions[j]]}, the id's place in the caller's request.
   */
  private GetDocumentsResponse documentsOfShard(
      int shard, List<String> ids, List<Integer> positions) {
    try {
      return onReplica(
          shard,
          copy ->
              index.getDocuments(
                  GetDocumentsRequest.newBuilder().setCollection(copy).addAllIds(ids).build()));
    } catch (StatusRuntimeException refused) {
      String field = StatusMapper.violatedField(refused);
      Matcher id = ID_FIELD.matcher(field == null ? "" : field);
      if (!id.matches()) {
        throw refused;
      }
      int j = Integer.parseInt(id.group(1));
      if (j >= positions.size()) {
        throw refused;
      }
      throw StatusMapper.withField(
          com.google.rpc.Code.forNumber(refused.getStatus().getCode().value()),
          refused.getStatus().getDescription(),
          "ids[" + positions.get(j) + "]");
    }
  }

  private String shardName(int shard) {
    return shardName(name, shard, shards);
  }

  /**
   * {@code call} for every shard at once, each on a virtual thread of its own (the shards may live
   * on different index pods); the answers in shard order. The first failure, in shard order, is
   * thrown once every call has ended.
   */
  private <T> List<T> onEveryShard(IntFunction<T> call) {
    if (shards == 1) {
      return List.of(call.apply(0));
    }
    List<Future<T>> calls = new ArrayList<>(shards);
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int s = 0; s < shards; s++) {
        int shard = s;
        calls.add(threads.submit(() -> call.apply(shard)));
      }
    }
    List<T> answers = new ArrayList<>(shards);
    for (Future<T> answer : calls) {
      switch (answer.state()) {
        case SUCCESS -> answers.add(answer.resultNow());
        case FAILED -> {
          Throwable failure = answer.exceptionNow();
          if (failure instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (failure instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(failure);
        }
        // Cancelled: this thread was interrupted while the calls ran (close() stopped them).
        default ->
            throw Status.CANCELLED
                .withDescription("interrupted while calling the shards of " + name)
                .asRuntimeException();
      }
    }
    return answers;
  }

  /** Score descending, then document id ascending in the family's tie order. */
  static Comparator<ScoredDocument> order(Family family) {
    Comparator<ScoredDocument> byId =
        family == Family.FAMILY_BM25
            ? (a, b) ->
                Arrays.compareUnsigned(
                    a.getDocId().getBytes(StandardCharsets.UTF_8),
                    b.getDocId().getBytes(StandardCharsets.UTF_8))
            : Comparator.comparing(ScoredDocument::getDocId);
    return Comparator.comparingDouble((ScoredDocument doc) -> doc.getScore())
        .reversed()
        .thenComparing(byId);
  }

  /** The first {@code k} of the shards' lists (each in {@code order}), ranked from 1. */
  static Ranking merge(
      String queryId, List<List<ScoredDocument>> lists, Comparator<ScoredDocument> order, int k) {
    List<ScoredDocument> all = new ArrayList<>();
    lists.forEach(all::addAll);
    all.sort(order);
    Ranking.Builder ranking = Ranking.newBuilder().setQueryId(queryId);
    for (int i = 0; i < Math.min(k, all.size()); i++) {
      ranking.addDocuments(all.get(i).toBuilder().setRank(i + 1));
    }
    return ranking.build();
  }

  /**
   * The shards' statistics as one search's: times and document counts added; the query's values
   * (clipped, saturated: every shard quantizes the query with the same ranges) and sizes as any
   * shard's; recall averaged (replaced by the merged lists' recall when the shards sent their exact
   * lists, which this version's shards always do for an approximate search).
   */
  private static SearchStats stats(List<SearchStats> parts) {
    SearchStats.Builder stats = parts.getFirst().toBuilder();
    long nanos = 0;
    long documentValues = 0;
    long saturatedDocuments = 0;
    double recall = 0;
    for (SearchStats part : parts) {
      nanos += part.getSearchNanos();
      documentValues += part.getDocumentValues();
      saturatedDocuments += part.getSaturatedDocumentValues();
      recall += part.getApproximateRecall();
    }
    return stats
        .setSearchNanos(nanos)
        .setDocumentValues(documentValues)
        .setSaturatedDocumentValues(saturatedDocuments)
        .setApproximateRecall(recall / parts.size())
        .build();
  }
}
