package dev.tenbin.index.grpc;

import dev.tenbin.core.Cancellation;
import dev.tenbin.core.InvalidInputException;
import dev.tenbin.index.IndexServiceConfig;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.collection.CollectionStats;
import dev.tenbin.index.collection.IndexCollection;
import dev.tenbin.index.collection.ScoredHit;
import dev.tenbin.index.dense.VectorSimilarity;
import dev.tenbin.index.fusion.RankFusion;
import dev.tenbin.index.fusion.RankedDoc;
import dev.tenbin.proto.index.v1.FuseRequest;
import dev.tenbin.proto.index.v1.FuseResponse;
import dev.tenbin.index.lexical.Bm25Parameters;
import dev.tenbin.index.lexical.LanguageAnalyzers;
import dev.tenbin.index.lexical.LanguageDetector;
import dev.tenbin.proto.common.v1.DenseVector;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.CreateCollectionResponse;
import dev.tenbin.proto.index.v1.DescribeCollectionRequest;
import dev.tenbin.proto.index.v1.DescribeCollectionResponse;
import dev.tenbin.proto.index.v1.DropCollectionRequest;
import dev.tenbin.proto.index.v1.DropCollectionResponse;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.IngestRequest;
import dev.tenbin.proto.index.v1.IngestResponse;
import dev.tenbin.proto.index.v1.ListCollectionsRequest;
import dev.tenbin.proto.index.v1.ListCollectionsResponse;
import dev.tenbin.proto.index.v1.LanguageSource;
import dev.tenbin.proto.index.v1.ResolveLanguageRequest;
import dev.tenbin.proto.index.v1.ResolveLanguageResponse;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.proto.index.v1.SearchStats;
import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;

/**
 * Thin adapter from {@code tenbin.index.v1} to the collection catalog: converts and validates
 * requests; core exceptions become statuses in {@code ExceptionMappingInterceptor}.
 */
public final class IndexGrpcService extends IndexServiceGrpc.IndexServiceImplBase {
  /** The longest text sample {@code ResolveLanguage} reads. */
  static final int MAX_LANGUAGE_SAMPLE_CHARS = 1 << 20;

  private final CollectionCatalog catalog;
  private final IndexServiceConfig config;

  public IndexGrpcService(CollectionCatalog catalog, IndexServiceConfig config) {
    this.catalog = catalog;
    this.config = config;
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
            .setCollection(CollectionDescriptions.of(catalog.describe(collection.spec().name(), "spec.name")))
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
    ListCollectionsResponse.Builder response = ListCollectionsResponse.newBuilder();
    for (CollectionStats stats : catalog.describeAll()) {
      response.addCollections(CollectionDescriptions.of(stats));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void resolveLanguage(ResolveLanguageRequest request, StreamObserver<ResolveLanguageResponse> responses) {
    ResolveLanguageResponse.Builder response = ResolveLanguageResponse.newBuilder();
    if (!request.getLanguage().isBlank()) {
      try {
        response.setLanguage(LanguageAnalyzers.normalize(request.getLanguage())).setSource(LanguageSource.LANGUAGE_SOURCE_GIVEN);
      } catch (InvalidInputException e) {
        throw new InvalidInputException("language", e.getMessage());
      }
    } else if (request.getTextSample().length() > MAX_LANGUAGE_SAMPLE_CHARS) {
      throw new InvalidInputException(
          "text_sample", "text_sample is limited to " + MAX_LANGUAGE_SAMPLE_CHARS + " characters, got " + request.getTextSample().length());
    } else {
      response.setLanguage(LanguageDetector.detect(request.getTextSample())).setSource(LanguageSource.LANGUAGE_SOURCE_DETECTED);
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

  @Override
  public void search(SearchRequest request, StreamObserver<SearchResponse> responses) {
    IndexCollection collection = catalog.get(request.getCollection(), "collection");
    validateTopK(request.getTopK());
    if (request.getQueriesCount() == 0) {
      throw new InvalidInputException("queries", "at least one query is required");
    }
    if (request.getQueriesCount() > config.maxQueriesPerRequest()) {
      throw new InvalidInputException(
          "queries",
          "at most " + config.maxQueriesPerRequest() + " queries per request, got "
              + request.getQueriesCount());
    }
    Family family = RequestOptions.family(request.getFamily(), request.getFamilyValue());
    dev.tenbin.index.dense.DenseSearchOptions denseOptions = RequestOptions.dense(request.getDense());
    RequestOptions.sparse(request.getSparse());
    double recallSum = 0;
    long clipped = 0;
    long queryValues = 0;
    long bytesPerVector = 0;
    Cancellation cancellation = Context.current()::isCancelled;
    long start = System.nanoTime();
    SearchResponse.Builder response = SearchResponse.newBuilder();
    List<IndexCollection.DenseRanking> denseBatch = null;
    if (family == Family.FAMILY_DENSE) {
      // One pass over the corpus serves several queries at once (same results as one at a time).
      List<float[]> vectors = new ArrayList<>(request.getQueriesCount());
      for (int i = 0; i < request.getQueriesCount(); i++) {
        if (!request.getQueries(i).hasDense()) {
          throw new InvalidInputException("queries[" + i + "].dense", "a dense search needs a dense query vector");
        }
        vectors.add(toArray(request.getQueries(i).getDense()));
      }
      denseBatch = collection.searchDenseBatch(vectors, denseOptions, request.getTopK(), cancellation);
    }
    for (int i = 0; i < request.getQueriesCount(); i++) {
      Query query = request.getQueries(i);
      List<ScoredHit> hits;
      if (family == Family.FAMILY_BM25) {
        hits = collection.searchBm25(query.getText(), request.getTopK(), cancellation);
      } else if (family == Family.FAMILY_SPARSE) {
        if (!query.hasSparse()) {
          throw new InvalidInputException("queries[" + i + "].sparse", "a sparse search needs a sparse query vector");
        }
        hits =
            collection.searchSparse(
                toSparse(query.getSparse()), request.getSparse().getMaxQueryDims(), request.getSparse().getMaxDocumentDims(),
                request.getTopK(), cancellation);
      } else if (family == Family.FAMILY_MULTIVECTOR) {
        if (!query.hasMultiVector()) {
          throw new InvalidInputException("queries[" + i + "].multi_vector", "a late-interaction search needs query token vectors");
        }
        hits = collection.searchMaxSim(toTokenVectors(query.getMultiVector()), request.getTopK(), cancellation);
      } else if (family == Family.FAMILY_DENSE) {
        var dense = denseBatch.get(i);
        hits = dense.hits();
        clipped += dense.clippedQueryValues();
        queryValues += dense.queryValues();
        bytesPerVector = dense.bytesPerVector();
        recallSum += Double.isNaN(dense.approximateRecall()) ? 0 : dense.approximateRecall();
      } else {
        throw new IllegalStateException("family " + family + " has no search");
      }
      response.addRankings(toRanking(query.getId(), hits));
    }
    response.setStats(
        SearchStats.newBuilder()
            .setSearchNanos(System.nanoTime() - start)
            .setClippedQueryValues(clipped)
            .setQueryValues(queryValues)
            .setBytesPerVector(bytesPerVector)
            .setApproximateRecall(denseOptions.approximate() ? recallSum / request.getQueriesCount() : 0));
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void rescore(
      dev.tenbin.proto.index.v1.RescoreRequest request, StreamObserver<dev.tenbin.proto.index.v1.RescoreResponse> responses) {
    IndexCollection collection = catalog.get(request.getCollection(), "collection");
    Family family = RequestOptions.family(request.getFamily(), request.getFamilyValue());
    VectorSimilarity similarity = RequestOptions.similarity(request.getDense());
    RequestOptions.sparse(request.getSparse());
    if (request.getCandidatesCount() > config.maxQueriesPerRequest()) {
      throw new InvalidInputException(
          "candidates",
          "at most " + config.maxQueriesPerRequest() + " candidate lists per request, got " + request.getCandidatesCount());
    }
    Cancellation cancellation = Context.current()::isCancelled;
    long start = System.nanoTime();
    var response = dev.tenbin.proto.index.v1.RescoreResponse.newBuilder();
    for (int i = 0; i < request.getCandidatesCount(); i++) {
      var candidates = request.getCandidates(i);
      String field = "candidates[" + i + "].doc_ids";
      List<ScoredHit> hits;
      if (family == Family.FAMILY_BM25) {
        hits = collection.rescoreBm25(candidates.getQuery().getText(), candidates.getDocIdsList(), field, cancellation);
      } else if (family == Family.FAMILY_SPARSE) {
        hits =
            collection.rescoreSparse(
                toSparse(candidates.getQuery().getSparse()), request.getSparse().getMaxQueryDims(),
                request.getSparse().getMaxDocumentDims(), candidates.getDocIdsList(), field);
      } else if (family == Family.FAMILY_MULTIVECTOR) {
        hits = collection.rescoreMaxSim(toTokenVectors(candidates.getQuery().getMultiVector()), candidates.getDocIdsList(), field);
      } else if (family == Family.FAMILY_DENSE) {
        if (!candidates.getQuery().hasDense()) {
          throw new InvalidInputException("candidates[" + i + "].query.dense", "dense rescoring needs a dense query vector");
        }
        hits =
            collection.rescoreDense(
                toArray(candidates.getQuery().getDense()), candidates.getDocIdsList(), similarity,
                request.getDense().getTruncateDimensions(), field);
      } else {
        throw new IllegalStateException("family " + family + " has no rescoring");
      }
      response.addRankings(toRanking(candidates.getQuery().getId(), hits));
    }
    response.setStats(SearchStats.newBuilder().setSearchNanos(System.nanoTime() - start));
    responses.onNext(response.build());
    responses.onCompleted();
  }

  @Override
  public void fuse(FuseRequest request, StreamObserver<FuseResponse> responses) {
    if (request.getSystemsCount() == 0) {
      throw new InvalidInputException("systems", "at least one ranking set is required");
    }
    if (request.getTopK() < 0 || request.getTopK() > config.maxTopK()) {
      throw new InvalidInputException("top_k", "top_k must be within 0.." + config.maxTopK());
    }
    java.util.Map<String, List<List<RankedDoc>>> byQuery = new java.util.LinkedHashMap<>();
    for (int s = 0; s < request.getSystemsCount(); s++) {
      for (Ranking ranking : request.getSystems(s).getRankingsList()) {
        List<List<RankedDoc>> lists =
            byQuery.computeIfAbsent(ranking.getQueryId(), q -> new ArrayList<>());
        while (lists.size() < request.getSystemsCount()) {
          lists.add(new ArrayList<>());
        }
        for (ScoredDocument doc : ranking.getDocumentsList()) {
          lists.get(s).add(new RankedDoc(doc.getDocId(), doc.getScore()));
        }
      }
    }
    FuseResponse.Builder response = FuseResponse.newBuilder();
    for (var entry : byQuery.entrySet()) {
      List<RankedDoc> fused =
          switch (request.getMethod()) {
            case FUSION_METHOD_RRF ->
                RankFusion.reciprocalRank(entry.getValue(), request.getRrfK() == 0 ? 60 : request.getRrfK(), request.getTopK());
            case FUSION_METHOD_LINEAR -> RankFusion.linear(entry.getValue(), request.getWeightsList(), request.getTopK());
            default -> throw new InvalidInputException("method", "method must be FUSION_METHOD_RRF or FUSION_METHOD_LINEAR");
          };
      List<ScoredHit> hits = new ArrayList<>(fused.size());
      for (RankedDoc doc : fused) {
        hits.add(new ScoredHit(doc.docId(), doc.score()));
      }
      response.addRankings(toRanking(entry.getKey(), hits));
    }
    responses.onNext(response.build());
    responses.onCompleted();
  }

  private void validateTopK(int topK) {
    if (topK <= 0 || topK > config.maxTopK()) {
      throw new InvalidInputException(
          "top_k", "top_k must be within 1.." + config.maxTopK() + ", got " + topK);
    }
  }

  static Ranking toRanking(String queryId, List<ScoredHit> hits) {
    Ranking.Builder ranking = Ranking.newBuilder().setQueryId(queryId);
    int rank = 1;
    for (ScoredHit hit : hits) {
      ranking.addDocuments(
          ScoredDocument.newBuilder()
              .setDocId(hit.docId())
              .setScore(hit.score())
              .setRank(rank++));
    }
    return ranking.build();
  }

  private static dev.tenbin.index.sparse.SparseDoc toSparse(dev.tenbin.proto.common.v1.SparseVector vector) {
    return ProtoVectors.sparse(vector);
  }

  private static dev.tenbin.index.multivector.TokenVectors toTokenVectors(dev.tenbin.proto.common.v1.MultiVector vector) {
    return ProtoVectors.tokens(vector);
  }

  private static float[] toArray(DenseVector vector) {
    return ProtoVectors.dense(vector);
  }
}
