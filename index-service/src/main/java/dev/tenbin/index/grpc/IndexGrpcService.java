package dev.tenbin.index.grpc;

import com.google.protobuf.CodedOutputStream;
import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.core.SafeText;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.CollectionDigest;
import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.collection.CollectionStats;
import dev.tenbin.index.collection.DocumentCursor;
import dev.tenbin.index.collection.IndexCollection;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.fusion.RankFusion;
import dev.tenbin.index.lexical.Bm25Parameters;
import dev.tenbin.index.lexical.LanguageAnalyzers;
import dev.tenbin.index.lexical.LanguageDetector;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.SearchResult;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CandidateList;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.CreateCollectionResponse;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionResponse;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.DropCollectionResponse;
import dev.tenbin.proto.index.v1.ExportDocumentsRequest;
import dev.tenbin.proto.index.v1.ExportDocumentsResponse;
import dev.tenbin.proto.index.v1.FuseRequest;
import dev.tenbin.proto.index.v1.FuseResponse;
import dev.tenbin.proto.index.v1.GetCollectionDigestRequest;
import dev.tenbin.proto.index.v1.GetCollectionDigestResponse;
import dev.tenbin.proto.index.v1.GetDocumentsRequest;
import dev.tenbin.proto.index.v1.GetDocumentsResponse;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.LanguageSource;
import dev.tenbin.proto.index.v1.ListCollectionsRequest;
import dev.tenbin.proto.index.v1.ListCollectionsResponse;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.RescoreRequest;
import dev.tenbin.proto.index.v1.RescoreResponse;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.ResolveLanguageResponse;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStats;
import dev.tenbin.proto.index.v1.SearchStreamRequest;
import dev.tenbin.proto.index.v1.SearchStreamResponse;
import dev.tenbin.proto.index.v1.StoredDocument;
import dev.tenbin.rpc.Paging;
import dev.tenbin.rpc.ResponseSequence;
import io.grpc.Context;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * Thin adapter from {@code tenbin.index.v1} to the collection catalog: search and rescore requests
 * are validated and mapped by {@link SearchRequests} into the core's one request, then served by
 * one call of {@link IndexCollection#search} ({@code Search} and each request of a {@code
 * SearchStream} through the one {@link #answer}); core exceptions become statuses in {@code
 * ExceptionMappingInterceptor} ({@code dev.tenbin.rpc.StatusMapper}).
 */
public final class IndexGrpcService extends IndexServiceGrpc.IndexServiceImplBase {
  /** The longest text sample {@code ResolveLanguage} reads. */
  static final int MAX_LANGUAGE_SAMPLE_CHARS = 1 << 20;

  /** The most ids one {@code GetDocuments} call may ask for. */
  static final int MAX_DOCUMENT_IDS = 10_000;

  /** The most bytes the documents of one {@code GetDocuments} response may take on the wire. */
  static final long MAX_DOCUMENTS_RESPONSE_BYTES = 64L << 20;

  private final CollectionCatalog catalog;
  private final IndexServiceConfig config;
  private final SearchRequests requests;

  public IndexGrpcService(CollectionCatalog catalog, IndexServiceConfig config) {
    this.catalog = catalog;
    this.config = config;
    this.requests = new SearchRequests(config);
  }

  @Override
  public void createCollection(
      CreateCollectionRequest request, StreamObserver<CreateCollectionResponse> responses) {
    if (!request.hasSpec()) {
      throw new InvalidInputException("spec", "spec is required");
    }
    var spec = request.getSpec();
    Bm25Parameters bm25 =
        new Bm25Parameters(
            spec.getBm25().hasK1() ? spec.getBm25().getK1() : Bm25Parameters.ANSERINI_DEFAULTS.k1(),
            spec.getBm25().hasB() ? spec.getBm25().getB() : Bm25Parameters.ANSERINI_DEFAULTS.b());
    IndexCollection collection =
        catalog.create(
            new CollectionSpec(
                spec.getName(),
                spec.getLanguage(),
                bm25,
                spec.getDenseDimension(),
                spec.getSparseVocabularySize(),
                spec.getMultivectorDimension()));
    responses.onNext(
        CreateCollectionResponse.newBuilder()
            .setCollection(
                CollectionDescriptions.of(catalog.describe(collection.spec().name(), "spec.name")))
            .build());
    responses.onCompleted();
  }

  @Override
  public void describeCollection(
      DescribeCollectionRequest request, StreamObserver<DescribeCollectionResponse> responses) {
    responses.onNext(
        DescribeCollectionResponse.newBuilder()
            .setCollection(CollectionDescriptions.of(catalog.describe(request.getName(), "name")))
            .build());
    responses.onCompleted();
  }

  @Override
  public void listCollections(
      ListCollectionsRequest request, StreamObserver<ListCollectionsResponse> responses) {
    Paging.Page<CollectionStats> page =
        Paging.page(
            "collections", catalog.describeAll(), request.getPageSize(), request.getPageToken());
    ListCollectionsResponse.Builder response =
        ListCollectionsResponse.newBuilder().setNextPageToken(page.nextPageToken());
    for (CollectionStats stats : page.items()) {
      response.addCollections(CollectionDescriptions.of(stats));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void resolveLanguage(
      ResolveLanguageRequest request, StreamObserver<ResolveLanguageResponse> responses) {
    ResolveLanguageResponse.Builder response = ResolveLanguageResponse.newBuilder();
    if (!request.getLanguage().isBlank()) {
      try {
        response
            .setLanguage(LanguageAnalyzers.normalize(request.getLanguage()))
            .setSource(LanguageSource.LANGUAGE_SOURCE_GIVEN);
      } catch (InvalidInputException e) {
        throw new InvalidInputException("language", e.getMessage());
      }
    } else if (request.getTextSample().length() > MAX_LANGUAGE_SAMPLE_CHARS) {
      throw new InvalidInputException(
          "text_sample",
          "text_sample is limited to "
              + MAX_LANGUAGE_SAMPLE_CHARS
              + " characters, got "
              + request.getTextSample().length());
    } else {
      response
          .setLanguage(LanguageDetector.detect(request.getTextSample()))
          .setSource(LanguageSource.LANGUAGE_SOURCE_DETECTED);
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void dropCollection(
      DropCollectionRequest request, StreamObserver<DropCollectionResponse> responses) {
    catalog.describe(request.getName(), "name");
    responses.onNext(
        DropCollectionResponse.newBuilder().setDropped(catalog.drop(request.getName())).build());
    responses.onCompleted();
  }

  /** One acknowledgement per committed batch; see {@link IngestStream}. */
  @Override
  public StreamObserver<IngestRequest> ingest(StreamObserver<IngestResponse> responses) {
    return new IngestStream(catalog, responses);
  }

  /** Validation and mapping in {@link SearchRequests}, then one core call; see {@link #answer}. */
  @Override
  public void search(SearchRequest request, StreamObserver<SearchResponse> responses) {
    responses.onNext(answer(request, Context.current()::isCancelled));
    responses.onCompleted();
  }

  /** One answer per request, in order, under flow control; see {@link SearchStream}. */
  @Override
  public StreamObserver<SearchStreamRequest> searchStream(
      StreamObserver<SearchStreamResponse> responses) {
    return new SearchStream(this::answer, responses);
  }

  /**
   * What {@code Search} answers for {@code request}, and {@code SearchStream} for each request it
   * carries: the collection looked up (NOT_FOUND or FAILED_PRECONDITION naming {@code collection}),
   * the request validated and mapped by {@link SearchRequests}, then one core call.
   */
  SearchResponse answer(SearchRequest request, Cancellation cancellation) {
    IndexCollection collection = catalog.get(request.getCollection(), "collection");
    SearchResult result = collection.search(requests.search(request), cancellation);
    SearchResponse.Builder response =
        SearchResponse.newBuilder()
            .addAllRankings(rankings(result.rankings(), request.getQueriesList()))
            .setStats(stats(result.stats()));
    if (request.getDense().getExactRankings()) {
      response.addAllExactRankings(rankings(result.exactRankings(), request.getQueriesList()));
    }
    return response.build();
  }

  /** Validation and mapping in {@link SearchRequests}, then one core call. */
  @Override
  public void rescore(RescoreRequest request, StreamObserver<RescoreResponse> responses) {
    IndexCollection collection = catalog.get(request.getCollection(), "collection");
    SearchResult result =
        collection.search(requests.rescore(request), Context.current()::isCancelled);
    List<Query> queries =
        request.getCandidatesList().stream().map(CandidateList::getQuery).toList();
    responses.onNext(
        RescoreResponse.newBuilder()
            .addAllRankings(rankings(result.rankings(), queries))
            .setStats(SearchStats.newBuilder().setSearchNanos(result.stats().searchNanos()))
            .build());
    responses.onCompleted();
  }

  /** The BM25 statistics of the collection and of the texts' analysed terms (a shard's DFS). */
  @Override
  public void getTermStatistics(
      dev.tenbin.proto.index.v1.GetTermStatisticsRequest request,
      StreamObserver<dev.tenbin.proto.index.v1.GetTermStatisticsResponse> responses) {
    if (request.getTextsCount() > config.maxQueriesPerRequest()) {
      throw new InvalidInputException(
          "texts",
          "at most "
              + config.maxQueriesPerRequest()
              + " texts per request, got "
              + request.getTextsCount());
    }
    for (int i = 0; i < request.getTextsCount(); i++) {
      int bytes = request.getTextsBytes(i).size();
      if (bytes > SearchRequests.MAX_QUERY_TEXT_BYTES) {
        throw InvalidInputException.tooLarge(
            "texts[" + i + "]",
            "a BM25 query's text may have at most "
                + SearchRequests.MAX_QUERY_TEXT_BYTES
                + " UTF-8 bytes, this one has "
                + bytes);
      }
    }
    IndexCollection collection = catalog.get(request.getCollection(), "collection");
    responses.onNext(
        dev.tenbin.proto.index.v1.GetTermStatisticsResponse.newBuilder()
            .setStatistics(SearchRequests.proto(collection.termStatistics(request.getTextsList())))
            .build());
    responses.onCompleted();
  }

  /** The int8 ranges of one dense variant of the collection (a shard's part of the span). */
  @Override
  public void getInt8Calibration(
      dev.tenbin.proto.index.v1.GetInt8CalibrationRequest request,
      StreamObserver<dev.tenbin.proto.index.v1.GetInt8CalibrationResponse> responses) {
    if (!request.hasDense()) {
      throw new InvalidInputException(
          "dense", "dense is required: the variant's similarity and truncate_dimensions");
    }
    IndexCollection collection = catalog.get(request.getCollection(), "collection");
    IndexCollection.DenseCalibration calibration =
        collection.ownInt8Calibration(SearchRequests.dense(request.getDense()));
    var response =
        dev.tenbin.proto.index.v1.GetInt8CalibrationResponse.newBuilder()
            .setDocuments(calibration.documents());
    if (calibration.calibration() != null) {
      response.setCalibration(CollectionDescriptions.calibration(calibration.calibration()));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  /**
   * Stored documents in request order; the response is built one document at a time and refused
   * ({@code ids}) as soon as it would pass {@link #MAX_DOCUMENTS_RESPONSE_BYTES}.
   */
  @Override
  public void getDocuments(
      GetDocumentsRequest request, StreamObserver<GetDocumentsResponse> responses) {
    if (request.getIdsCount() == 0 || request.getIdsCount() > MAX_DOCUMENT_IDS) {
      throw new InvalidInputException(
          "ids",
          "ids must hold 1.." + MAX_DOCUMENT_IDS + " document ids, got " + request.getIdsCount());
    }
    IndexCollection collection = catalog.get(request.getCollection(), "collection");
    GetDocumentsResponse.Builder response = GetDocumentsResponse.newBuilder();
    long[] bytes = {0};
    collection.documents(
        request.getIdsList(),
        "ids",
        document -> {
          StoredDocument stored =
              StoredDocument.newBuilder()
                  .setId(document.id())
                  .setTitle(document.title())
                  .setText(document.text())
                  .build();
          bytes[0] += CodedOutputStream.computeMessageSize(1, stored);
          if (bytes[0] > MAX_DOCUMENTS_RESPONSE_BYTES) {
            throw new InvalidInputException(
                "ids",
                "the documents of the first "
                    + (response.getDocumentsCount() + 1)
                    + " ids already pass the response limit of "
                    + MAX_DOCUMENTS_RESPONSE_BYTES
                    + " bytes; ask for fewer ids per call");
          }
          response.addDocuments(stored);
        });
    responses.onNext(response.build());
    responses.onCompleted();
  }

  /** The digest of a collection's content, computed from its stores on each call. */
  @Override
  public void getCollectionDigest(
      GetCollectionDigestRequest request, StreamObserver<GetCollectionDigestResponse> responses) {
    CollectionDigest digest = named(request.getCollection()).digest();
    responses.onNext(
        GetCollectionDigestResponse.newBuilder()
            .setDigest(digest.hex())
            .setDocumentCount(digest.documents())
            .build());
    responses.onCompleted();
  }

  /**
   * A collection's documents in id order, one page made each time the client can take one ({@link
   * ResponseSequence}); see {@link DocumentPages}.
   */
  @Override
  public void exportDocuments(
      ExportDocumentsRequest request, StreamObserver<ExportDocumentsResponse> responses) {
    int pageSize = DocumentPages.pageSize(request.getPageSize());
    DocumentCursor cursor = named(request.getCollection()).documentsInIdOrder();
    ResponseSequence.send(
        (ServerCallStreamObserver<ExportDocumentsResponse>) responses,
        new DocumentPages(cursor, pageSize));
  }

  /**
   * The collection a request names in {@code collection}: INVALID_ARGUMENT naming it when empty,
   * else as {@link CollectionCatalog#get}.
   */
  private IndexCollection named(String collection) {
    if (collection.isEmpty()) {
      throw new InvalidInputException("collection", "collection is required: a collection's name");
    }
    return catalog.get(collection, "collection");
  }

  private static List<Ranking> rankings(List<List<Hit>> lists, List<Query> queries) {
    List<Ranking> rankings = new ArrayList<>(queries.size());
    for (int i = 0; i < queries.size(); i++) {
      rankings.add(toRanking(queries.get(i).getId(), lists.get(i)));
    }
    return rankings;
  }

  private static SearchStats stats(dev.tenbin.index.search.SearchStats stats) {
    SearchStats.Builder out =
        SearchStats.newBuilder()
            .setSearchNanos(stats.searchNanos())
            .setClippedQueryValues(stats.clippedQueryValues())
            .setQueryValues(stats.queryValues())
            .setBytesPerVector(stats.bytesPerVector())
            .setApproximateRecall(stats.approximateRecall())
            .setStoredBytesPerVector(stats.storedBytesPerVector())
            .setSaturatedQueryValues(stats.saturatedQueryValues())
            .setSaturatedDocumentValues(stats.saturatedDocumentValues())
            .setDocumentValues(stats.documentValues());
    if (stats.int8Calibration() != null) {
      out.setInt8Calibration(CollectionDescriptions.calibration(stats.int8Calibration()));
    }
    return out.build();
  }

  @Override
  public void fuse(FuseRequest request, StreamObserver<FuseResponse> responses) {
    if (request.getSystemsCount() == 0) {
      throw new InvalidInputException("systems", "at least one ranking set is required");
    }
    if (request.getTopK() < 0 || request.getTopK() > config.maxTopK()) {
      throw new InvalidInputException("top_k", "top_k must be within 0.." + config.maxTopK());
    }
    java.util.Map<String, List<List<Hit>>> byQuery = new java.util.LinkedHashMap<>();
    for (int s = 0; s < request.getSystemsCount(); s++) {
      java.util.Set<String> queries = new java.util.HashSet<>();
      for (int r = 0; r < request.getSystems(s).getRankingsCount(); r++) {
        Ranking ranking = request.getSystems(s).getRankings(r);
        String field = "systems[" + s + "].rankings[" + r + "]";
        if (!queries.add(ranking.getQueryId())) {
          throw new InvalidInputException(
              field + ".query_id",
              "system "
                  + s
                  + " has two rankings for query "
                  + SafeText.quote(ranking.getQueryId())
                  + "; one ranking per query and system");
        }
        List<List<Hit>> lists =
            byQuery.computeIfAbsent(ranking.getQueryId(), q -> new ArrayList<>());
        while (lists.size() < request.getSystemsCount()) {
          lists.add(new ArrayList<>());
        }
        java.util.Map<String, Integer> seen = new java.util.HashMap<>();
        for (int d = 0; d < ranking.getDocumentsCount(); d++) {
          ScoredDocument doc = ranking.getDocuments(d);
          Integer first = seen.putIfAbsent(doc.getDocId(), d);
          if (first != null) {
            throw new InvalidInputException(
                field + ".documents[" + d + "].doc_id",
                "document "
                    + SafeText.quote(doc.getDocId())
                    + " is listed twice in one ranking (documents["
                    + first
                    + "] and documents["
                    + d
                    + "]); a ranking lists each document once");
          }
          lists.get(s).add(new Hit(doc.getDocId(), doc.getScore()));
        }
      }
    }
    FuseResponse.Builder response = FuseResponse.newBuilder();
    for (var entry : byQuery.entrySet()) {
      List<Hit> fused =
          switch (request.getMethod()) {
            case FUSION_METHOD_RRF ->
                RankFusion.reciprocalRank(
                    entry.getValue(),
                    request.getRrfK() == 0 ? 60 : request.getRrfK(),
                    request.getWeightsList(),
                    request.getTopK());
            case FUSION_METHOD_LINEAR ->
                RankFusion.linear(entry.getValue(), request.getWeightsList(), request.getTopK());
            default ->
                throw new InvalidInputException(
                    "method", "method must be FUSION_METHOD_RRF or FUSION_METHOD_LINEAR");
          };
      response.addRankings(toRanking(entry.getKey(), fused));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  static Ranking toRanking(String queryId, List<Hit> hits) {
    Ranking.Builder ranking = Ranking.newBuilder().setQueryId(queryId);
    int rank = 1;
    for (Hit hit : hits) {
      ranking.addDocuments(
          ScoredDocument.newBuilder().setDocId(hit.docId()).setScore(hit.score()).setRank(rank++));
    }
    return ranking.build();
  }
}
