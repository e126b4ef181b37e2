package dev.tenbin.eval.bench;

import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.dataset.CorpusDocument;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.index.bench.Bm25CoreBenchmark;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
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

  /**
   * Both sides and their ratios; {@code inProcessParallelQueriesPerSecond} is the in-process search
   * spread over {@code threads} threads.
   */
  public record Result(
      String dataset,
      int documents,
      int queries,
      int passes,
      int topK,
      Figures inProcess,
      int threads,
      double inProcessParallelQueriesPerSecond,
      Figures grpc) {
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
  private final int topK;
  private final int threads;

  /**
   * Every search asks for the top {@code topK}; the parallel in-process run uses {@code threads}.
   */
  public Bm25Benchmark(BeirDataset dataset, String language, int passes, int topK, int threads) {
    this.dataset = dataset;
    this.language = language;
    this.passes = passes;
    this.topK = topK;
    this.threads = threads;
  }

  public Result run() {
    List<String> queries = new ArrayList<>();
    for (String id : dataset.evaluatedQueryIds()) {
      queries.add(dataset.queries().get(id));
    }
    // Warm-up of both paths, then the measured runs, alternated to share the machine's noise.
    inProcess(queries, 1);
    grpc(queries, 1);
    Bm25CoreBenchmark.Figures core = inProcess(queries, passes);
    Figures rpc = grpc(queries, passes);
    return new Result(
        dataset.name(),
        dataset.corpus().size(),
        queries.size(),
        passes,
        topK,
        new Figures(core.indexDocsPerSecond(), core.queriesPerSecond()),
        core.threads(),
        core.parallelQueriesPerSecond(),
        rpc);
  }

  private Bm25CoreBenchmark.Figures inProcess(List<String> queries, int searchPasses) {
    Path dir = tempDir();
    try {
      List<Bm25CoreBenchmark.Document> docs = new ArrayList<>();
      for (CorpusDocument doc : dataset.corpus()) {
        docs.add(new Bm25CoreBenchmark.Document(doc.id(), doc.title(), doc.text()));
      }
      return Bm25CoreBenchmark.inProcess(dir, language, docs, queries, searchPasses, topK, threads);
    } finally {
      delete(dir);
    }
  }

  private Figures grpc(List<String> queries, int searchPasses) {
    Path dir = tempDir();
    Bm25CoreBenchmark.Loopback server = Bm25CoreBenchmark.serveOnLoopback(dir);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
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
        docs.add(
            Document.newBuilder()
                .setId(doc.id())
                .setTitle(doc.title())
                .setText(doc.text())
                .build());
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
                      .setTopK(topK)
                      .addQueries(Query.newBuilder().setId("q").setText(query))
                      .build());
        }
      }
      double searchSeconds = (System.nanoTime() - start) / 1e9;
      return new Figures(
          docs.size() / indexSeconds, (double) queries.size() * searchPasses / searchSeconds);
    } finally {
      channel.shutdownNow();
      server.close();
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
