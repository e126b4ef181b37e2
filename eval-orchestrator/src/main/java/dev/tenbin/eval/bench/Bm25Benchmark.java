package dev.tenbin.eval.bench;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.CorpusDocument;
import dev.tenbin.index.IndexServer;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.collection.IndexCollection;
import dev.tenbin.index.collection.IngestDocument;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * BM25 indexing and search throughput, in-process (the plain-Java core) against over gRPC (a
 * loopback Netty server and client), on the same corpus and queries in one run.
 */
public final class Bm25Benchmark {
  /** Figures of one measurement. */
  public record Figures(double indexDocsPerSecond, double queriesPerSecond) {}

  /** Both sides and their ratios. */
  public record Result(
      String dataset, int documents, int queries, int passes, Figures inProcess, Figures grpc) {
    public double indexRatio() {
      return grpc.indexDocsPerSecond() / inProcess.indexDocsPerSecond();
    }

    public double queryRatio() {
      return grpc.queriesPerSecond() / inProcess.queriesPerSecond();
    }
  }

  private final BeirDataset dataset;
  private final String language;
  private final int passes;

  public Bm25Benchmark(BeirDataset dataset, String language, int passes) {
    this.dataset = dataset;
    this.language = language;
    this.passes = passes;
  }

  public Result run() {
    List<String> queries = new ArrayList<>();
    for (String id : dataset.evaluatedQueryIds()) {
      queries.add(dataset.queries().get(id));
    }
    // Warm-up of both paths, then the measured runs, alternated to share the machine's noise.
    inProcess(queries, 1);
    grpc(queries, 1);
    Figures core = inProcess(queries, passes);
    Figures rpc = grpc(queries, passes);
    return new Result(dataset.name(), dataset.corpus().size(), queries.size(), passes, core, rpc);
  }

  private Figures inProcess(List<String> queries, int searchPasses) {
    Path dir = tempDir();
    try (CollectionCatalog catalog = CollectionCatalog.open(dir)) {
      IndexCollection collection = catalog.create(CollectionSpec.lexical("bench", language));
      List<IngestDocument> docs = new ArrayList<>();
      for (CorpusDocument doc : dataset.corpus()) {
        docs.add(new IngestDocument(doc.id(), doc.title(), doc.text()));
      }
      long start = System.nanoTime();
      for (int from = 0; from < docs.size(); from += 1000) {
        collection.ingest(docs.subList(from, Math.min(docs.size(), from + 1000)));
      }
      double indexSeconds = (System.nanoTime() - start) / 1e9;
      start = System.nanoTime();
      for (int pass = 0; pass < searchPasses; pass++) {
        for (String query : queries) {
          collection.search(
              dev.tenbin.index.search.SearchRequest.topK(List.of(new dev.tenbin.index.search.LexicalQuery(query)), 100),
              Cancellation.NEVER);
        }
      }
      double searchSeconds = (System.nanoTime() - start) / 1e9;
      return new Figures(docs.size() / indexSeconds, (double) queries.size() * searchPasses / searchSeconds);
    } finally {
      delete(dir);
    }
  }

  private Figures grpc(List<String> queries, int searchPasses) {
    Path dir = tempDir();
    CollectionCatalog catalog = CollectionCatalog.open(dir);
    var config = dev.tenbin.index.IndexServiceConfig.embedded(dir);
    GrpcServerHost host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, -1, ServerSettings.DEFAULT_MAX_MESSAGE_BYTES, java.time.Duration.ofSeconds(1)),
            IndexServer.services(catalog, config));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", host.port()).usePlaintext().build();
    try {
      var index = IndexServiceGrpc.newBlockingStub(channel);
      index.createCollection(
          CreateCollectionRequest.newBuilder()
              .setSpec(
                  dev.tenbin.proto.index.v1.CollectionSpec.newBuilder()
                      .setName("bench")
                      .setLanguage(language))
              .build());
      List<Document> docs = new ArrayList<>();
      for (CorpusDocument doc : dataset.corpus()) {
        docs.add(Document.newBuilder().setId(doc.id()).setTitle(doc.title()).setText(doc.text()).build());
      }
      long start = System.nanoTime();
      new CollectionIngester(channel, 1000, 600).ingest("bench", docs);
      double indexSeconds = (System.nanoTime() - start) / 1e9;
      start = System.nanoTime();
      for (int pass = 0; pass < searchPasses; pass++) {
        for (String query : queries) {
          index
              .withDeadlineAfter(60, TimeUnit.SECONDS)
              .search(
                  SearchRequest.newBuilder()
                      .setCollection("bench")
                      .setFamily(Family.FAMILY_BM25)
                      .setTopK(100)
                      .addQueries(Query.newBuilder().setId("q").setText(query))
                      .build());
        }
      }
      double searchSeconds = (System.nanoTime() - start) / 1e9;
      return new Figures(docs.size() / indexSeconds, (double) queries.size() * searchPasses / searchSeconds);
    } finally {
      channel.shutdownNow();
      host.close();
      catalog.close();
      delete(dir);
    }
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("tenbin-bench-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException ignored) {
      // temporary folder; best effort
    }
  }
}
