package dev.tenbin.index.bench;

import dev.tenbin.core.Cancellation;
import dev.tenbin.index.IndexServer;
import dev.tenbin.index.IndexServiceConfig;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.collection.IndexCollection;
import dev.tenbin.index.collection.IngestDocument;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.search.SearchRequest;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The index side of {@code tenbin bench bm25}: BM25 indexing and search on the plain-Java core (no
 * gRPC), and an index service on a loopback port for the same work over gRPC. The orchestrator's
 * benchmark drives both through this class only.
 */
public final class Bm25CoreBenchmark {
  /** One document to index. */
  public record Document(String id, String title, String text) {}

  /**
   * Documents indexed and queries answered per second, the queries on one thread and spread over
   * {@code threads} threads.
   */
  public record Figures(
      double indexDocsPerSecond,
      double queriesPerSecond,
      int threads,
      double parallelQueriesPerSecond) {}

  /** An index service on 127.0.0.1:{@code port}, serving {@code dataDirectory} until closed. */
  public record Loopback(int port, GrpcServerHost host, CollectionCatalog catalog)
      implements AutoCloseable {
    @Override
    public void close() {
      host.close();
      catalog.close();
    }
  }

  private Bm25CoreBenchmark() {}

  /**
   * Indexes {@code documents} into a lexical collection of {@code language} under {@code
   * dataDirectory} (1,000 a batch), then runs every query {@code passes} times (top {@code topK})
   * on one thread, then again spread over {@code threads} threads (each query once per pass).
   */
  public static Figures inProcess(
      Path dataDirectory,
      String language,
      List<Document> documents,
      List<String> queries,
      int passes,
      int topK,
      int threads) {
    try (CollectionCatalog catalog = CollectionCatalog.open(dataDirectory)) {
      IndexCollection collection = catalog.create(CollectionSpec.lexical("bench", language));
      List<IngestDocument> docs = new ArrayList<>();
      for (Document doc : documents) {
        docs.add(new IngestDocument(doc.id(), doc.title(), doc.text()));
      }
      long start = System.nanoTime();
      for (int from = 0; from < docs.size(); from += 1000) {
        collection.ingest(docs.subList(from, Math.min(docs.size(), from + 1000)));
      }
      double indexSeconds = (System.nanoTime() - start) / 1e9;
      start = System.nanoTime();
      for (int pass = 0; pass < passes; pass++) {
        for (String query : queries) {
          search(collection, query, topK);
        }
      }
      double searchSeconds = (System.nanoTime() - start) / 1e9;
      int searches = queries.size() * passes;
      AtomicInteger nextSearch = new AtomicInteger();
      start = System.nanoTime();
      try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          workers.add(
              pool.submit(
                  () -> {
                    for (int i = nextSearch.getAndIncrement();
                        i < searches;
                        i = nextSearch.getAndIncrement()) {
                      search(collection, queries.get(i % queries.size()), topK);
                    }
                  }));
        }
        for (Future<?> worker : workers) {
          worker.get();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while benchmarking", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("a benchmark search failed", e.getCause());
      }
      double parallelSeconds = (System.nanoTime() - start) / 1e9;
      return new Figures(
          docs.size() / indexSeconds,
          searches / searchSeconds,
          threads,
          searches / parallelSeconds);
    }
  }

  private static void search(IndexCollection collection, String query, int topK) {
    collection.search(
        SearchRequest.topK(List.of(new LexicalQuery(query)), topK), Cancellation.NEVER);
  }

  /**
   * Starts an index service over {@code dataDirectory} on a free loopback port (plaintext, no
   * metrics port).
   */
  public static Loopback serveOnLoopback(Path dataDirectory) {
    CollectionCatalog catalog = CollectionCatalog.open(dataDirectory);
    try {
      GrpcServerHost host =
          GrpcServerHost.start(
              new ServerSettings(
                  "127.0.0.1",
                  0,
                  -1,
                  ServerSettings.DEFAULT_MAX_MESSAGE_BYTES,
                  Duration.ofSeconds(1)),
              IndexServer.services(catalog, IndexServiceConfig.embedded(dataDirectory)));
      return new Loopback(host.port(), host, catalog);
    } catch (RuntimeException e) {
      catalog.close();
      throw e;
    }
  }
}
