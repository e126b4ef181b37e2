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
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 */
public final class ShardedCollection {
  private static final Pattern SHARD = Pattern.compile("(.+)\\.shard-(\\d+)-of-(\\d+)");

  /** A dense search's rescore depth when it gives none (the index service's default). */
  private static final int DEFAULT_RESCORE_DEPTH = 100;

  private final IndexClient index;
  private final String name;
  private final int shards;

  /**
   * @param index the index client (its channel routes each shard to its pod)
   * @param name the logical collection's name
   * @param shards the number of shards, at least 1
   */
  public ShardedCollection(IndexClient index, String name, int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("a collection has at least one shard, got " + shards);
    }
    this.index = index;
    this.name = name;
    this.shards = shards;
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

  /** The shards' collection names, in shard order. */
  public List<String> shardNames() {
    List<String> names = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      names.add(shardName(name, s, shards));
    }
    return names;
  }

  /** Creates every shard with {@code spec} (its name replaced by the shard's). */
  public void create(CollectionSpec spec) {
    for (String shard : shardNames()) {
      index.createCollection(
          CreateCollectionRequest.newBuilder().setSpec(spec.toBuilder().setName(shard)).build());
    }
  }

  /** Drops every shard. */
  public void drop() {
    for (String shard : shardNames()) {
      index.dropCollection(shard);
    }
  }

  /** The documents the shards hold together. */
  public long documentCount() {
    long count = 0;
    for (String shard : shardNames()) {
      count += index.describeCollection(shard).getDocumentCount();
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
    for (Bm25Statistics part : onEveryShard(s -> index.termStatistics(shardName(s), texts))) {
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
        onEveryShard(s -> index.int8Calibration(shardName(s), dense));
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
   * Searches every shard and merges each query's rankings into the collection's top {@code top_k};
   * {@code request} names the logical collection.
   */
  public SearchResponse search(SearchRequest request) {
    if (shards == 1) {
      return index.search(request.toBuilder().setCollection(shardName(name, 0, 1)).build());
    }
    SearchRequest.Builder shared = request.toBuilder();
    if (request.getFamily() == Family.FAMILY_BM25 && !request.getBm25().hasStatistics()) {
      shared.setBm25(
          Bm25Options.newBuilder()
              .setStatistics(
                  termStatistics(request.getQueriesList().stream().map(Query::getText).toList())));
    }
    if (request.getFamily() == Family.FAMILY_DENSE && request.hasDense()) {
      shared.setDense(withCollectionCalibration(request.getDense()));
      if (twoStage(request.getDense())) {
        return searchThenRescore(request, shared.getDense());
      }
    }
    return scatter(request, shared);
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
   * The two stages as one collection runs them: the quantized top max(k, rescore_depth) of the
   * whole collection (the merge of the shards' quantized top lists), then those candidates
   * re-scored in float on their shards and merged, the best {@code top_k} kept.
   */
  private SearchResponse searchThenRescore(SearchRequest request, DenseOptions dense) {
    int depth =
        Math.max(
            request.getTopK(),
            dense.getRescoreDepth() <= 0 ? DEFAULT_RESCORE_DEPTH : dense.getRescoreDepth());
    SearchRequest.Builder first =
        request.toBuilder().setTopK(depth).setDense(dense.toBuilder().setRescore(false));
    SearchResponse shortlists = scatter(first.build(), first);
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

  /** Searches every shard with {@code shared} and merges each query's lists. */
  private SearchResponse scatter(SearchRequest request, SearchRequest.Builder shared) {
    List<SearchRequest> requests = new ArrayList<>(shards);
    for (String shard : shardNames()) {
      requests.add(shared.setCollection(shard).build());
    }
    List<SearchResponse> parts = onEveryShard(s -> index.search(requests.get(s)));
    Comparator<ScoredDocument> order = order(request.getFamily());
    SearchResponse.Builder merged = SearchResponse.newBuilder();
    for (int q = 0; q < request.getQueriesCount(); q++) {
      List<List<ScoredDocument>> lists = new ArrayList<>(shards);
      for (SearchResponse part : parts) {
        lists.add(part.getRankings(q).getDocumentsList());
      }
      merged.addRankings(
          merge(parts.getFirst().getRankings(q).getQueryId(), lists, order, request.getTopK()));
    }
    return merged.setStats(stats(parts.stream().map(SearchResponse::getStats).toList())).build();
  }

  /**
   * Rescores fixed candidate lists: each candidate on its own shard (BM25 with the collection's
   * statistics), the lists merged back into one ranking per query.
   */
  public RescoreResponse rescore(RescoreRequest request) {
    if (shards == 1) {
      return index.rescore(request.toBuilder().setCollection(shardName(name, 0, 1)).build());
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
    List<RescoreResponse> parts = onEveryShard(s -> index.rescore(requests.get(s)));
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

  /** Stored documents by id, in request order, each fetched from its shard. */
  public GetDocumentsResponse getDocuments(GetDocumentsRequest request) {
    if (shards == 1) {
      return index.getDocuments(request.toBuilder().setCollection(shardName(name, 0, 1)).build());
    }
    List<List<String>> ids = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      ids.add(new ArrayList<>());
    }
    for (String id : request.getIdsList()) {
      ids.get(shardOf(id, shards)).add(id);
    }
    Map<String, StoredDocument> found = new HashMap<>();
    for (GetDocumentsResponse part :
        onEveryShard(
            s ->
                ids.get(s).isEmpty()
                    ? GetDocumentsResponse.getDefaultInstance()
                    : index.getDocuments(
                        GetDocumentsRequest.newBuilder()
                            .setCollection(shardName(s))
                            .addAllIds(ids.get(s))
                            .build()))) {
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
   * shard's; recall averaged.
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
