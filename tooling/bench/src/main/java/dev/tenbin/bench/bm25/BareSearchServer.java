package dev.tenbin.bench.bm25;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.collection.IndexCollection;
import dev.tenbin.index.collection.IngestDocument;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import dev.tenbin.scoring.beir.CorpusDocument;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The least a BM25 search service on gRPC-Java can be, for {@link ServerCpuBenchmark} to set
 * Tenbin's index service against: gRPC-Java with its default settings and executor, no interceptor,
 * no admission, no validation, and one handler for {@code IndexService/Search} that runs the same
 * core search as the service (the plain-Java {@link IndexCollection}) and answers with the hits'
 * ids, scores and ranks. It indexes a BEIR folder into a scratch catalog at start and says SERVING
 * on {@code grpc.health.v1} once done. Run in a process of its own:
 *
 * <pre>java -cp … dev.tenbin.bench.bm25.BareSearchServer --host H --port P DATASET LANGUAGE FOLDER
 * </pre>
 *
 * <p>Searches of collection any name go to the one collection it indexed.
 */
public final class BareSearchServer {
  private BareSearchServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 7 || !args[0].equals("--host") || !args[2].equals("--port")) {
      System.err.println("usage: BareSearchServer --host HOST --port PORT DATASET LANGUAGE FOLDER");
      System.exit(2);
    }
    String host = args[1];
    int port = Integer.parseInt(args[3]);
    BeirDataset dataset = BeirDatasetReader.read(Path.of(args[4]));
    String language = args[5];
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus("", HealthCheckResponse.ServingStatus.NOT_SERVING);
    try (CollectionCatalog catalog = CollectionCatalog.open(Path.of(args[6]))) {
      IndexCollection collection = catalog.create(CollectionSpec.lexical("bench", language));
      List<IngestDocument> documents = new ArrayList<>();
      for (CorpusDocument doc : dataset.corpus()) {
        documents.add(new IngestDocument(doc.id(), doc.title(), doc.text()));
      }
      for (int from = 0; from < documents.size(); from += 1000) {
        collection.ingest(documents.subList(from, Math.min(documents.size(), from + 1000)));
      }
      Server server =
          NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
              .addService(health.getHealthService())
              .addService(new Search(collection))
              .build()
              .start();
      health.setStatus("", HealthCheckResponse.ServingStatus.SERVING);
      Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
      server.awaitTermination();
    }
  }

  /** Search: each query's top k from the core, as ids and scores. */
  private static final class Search extends IndexServiceGrpc.IndexServiceImplBase {
    private final IndexCollection collection;

    Search(IndexCollection collection) {
      this.collection = collection;
    }

    @Override
    public void search(SearchRequest request, StreamObserver<SearchResponse> responses) {
      List<LexicalQuery> queries = new ArrayList<>();
      for (Query query : request.getQueriesList()) {
        queries.add(new LexicalQuery(query.getText()));
      }
      List<List<Hit>> rankings =
          collection
              .search(
                  dev.tenbin.index.search.SearchRequest.topK(queries, request.getTopK()),
                  Cancellation.NEVER)
              .rankings();
      SearchResponse.Builder response = SearchResponse.newBuilder();
      for (int q = 0; q < rankings.size(); q++) {
        Ranking.Builder ranking = Ranking.newBuilder().setQueryId(request.getQueries(q).getId());
        int rank = 0;
        for (Hit hit : rankings.get(q)) {
          ranking.addDocuments(
              ScoredDocument.newBuilder()
                  .setDocId(hit.docId())
                  .setScore(hit.score())
                  .setRank(++rank));
        }
        response.addRankings(ranking);
      }
      responses.onNext(response.build());
      responses.onCompleted();
    }
  }
}
