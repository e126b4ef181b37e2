package dev.tenbin.bench.index;

import dev.tenbin.core.Cancellation;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.index.collection.CollectionCatalog;
import dev.tenbin.index.collection.CollectionSpec;
import dev.tenbin.index.collection.IndexCollection;
import dev.tenbin.index.collection.IngestDocument;
import dev.tenbin.index.config.IndexServiceConfig;
import dev.tenbin.index.rank.Hit;
import dev.tenbin.index.search.LexicalQuery;
import dev.tenbin.index.search.SearchRequest;
import dev.tenbin.index.server.IndexServer;
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
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * The index side of {@code tenbin bench bm25}: one collection catalog that the benchmark uses
 * directly (the plain-Java core, no gRPC) and serves on a loopback port at the same time, so both
 * paths index into the same catalog and search the very same collection. The orchestrator's
 * benchmark drives both through this class only.
 */
public final class Bm25CoreBenchmark implements AutoCloseable {
  /** One document to index. */
  public record Document(String id, String title, String text) {}

  /** One hit of an in-process search: the document's id and its score. */
  public record ScoredId(String docId, float score) {}

  private final CollectionCatalog catalog;
  private final GrpcServerHost host;

  private Bm25CoreBenchmark(CollectionCatalog catalog, GrpcServerHost host) {
    this.catalog = catalog;
    this.host = host;
  }

  /**
   * Opens a catalog over {@code dataDirectory} and starts an index service on it on a free loopback
   * port (plaintext, no metrics port, the network server's default limits and handler pool).
   */
  public static Bm25CoreBenchmark open(Path dataDirectory) {
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
      return new Bm25CoreBenchmark(catalog, host);
    } catch (RuntimeException e) {
      catalog.close();
      throw e;
    }
  }

  /** The loopback port of the index service over this catalog. */
  public int port() {
    return host.port();
  }

  /**
   * Indexes {@code documents} in-process into a new lexical collection {@code name} of {@code
   * language}, {@value IndexSession#INGEST_BATCH} a batch (as an evaluation's ingest batches them),
   * and merges its index into one segment at the end, as an evaluation's ingest asks; returns the
   * seconds it took, the merge included.
   */
  public double ingest(String name, String language, List<Document> documents) {
    IndexCollection collection = catalog.create(CollectionSpec.lexical(name, language));
    List<IngestDocument> docs = new ArrayList<>(documents.size());
    for (Document doc : documents) {
      docs.add(new IngestDocument(doc.id(), doc.title(), doc.text()));
    }
    long start = System.nanoTime();
    for (int from = 0; from < docs.size(); from += IndexSession.INGEST_BATCH) {
      collection.ingest(
          docs.subList(from, Math.min(docs.size(), from + IndexSession.INGEST_BATCH)));
    }
    // As an evaluation's ingest ends (IndexSession: merge_segments with the last batch).
    collection.mergeSegments();
    return (System.nanoTime() - start) / 1e9;
  }

  /** Drops collection {@code name} (a warm-up's). */
  public void drop(String name) {
    catalog.drop(name);
  }

  /**
   * One in-process BM25 search of collection {@code name} for the top {@code topK} hits, as the
   * benchmark times it; returns how many hits it found.
   */
  public int search(String name, String query, int topK) {
    return rank(name, query, topK).size();
  }

  /** The hits of {@link #search}, to compare with another path's. */
  public List<ScoredId> hits(String name, String query, int topK) {
    return rank(name, query, topK).stream()
        .map(hit -> new ScoredId(hit.docId(), hit.score()))
        .toList();
  }

  private List<Hit> rank(String name, String query, int topK) {
    return catalog
        .get(name, "collection")
        .search(SearchRequest.topK(List.of(new LexicalQuery(query)), topK), Cancellation.NEVER)
        .rankings()
        .getFirst();
  }

  /**
   * Runs every query {@code passes} times (top {@code topK}) in-process, spread over {@code
   * threads} threads; returns queries per second.
   */
  public double parallelQueriesPerSecond(
      String name, List<String> queries, int passes, int topK, int threads) {
    return searchesPerSecond(
        queries.size() * passes,
        threads,
        thread -> i -> search(name, queries.get(i % queries.size()), topK));
  }

  /**
   * Runs searches {@code 0 .. searches - 1} on {@code threads} threads, each taking the next search
   * as soon as its last one returned; thread t runs search i as {@code
   * searchOnThread.apply(t).accept(i)}. Returns searches per second.
   *
   * @throws IllegalStateException when a search fails (its exception as the cause)
   */
  public static double searchesPerSecond(
      int searches, int threads, IntFunction<IntConsumer> searchOnThread) {
    AtomicInteger nextSearch = new AtomicInteger();
    long start = System.nanoTime();
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        IntConsumer search = searchOnThread.apply(t);
        workers.add(
            pool.submit(
                () -> {
                  for (int i = nextSearch.getAndIncrement();
                      i < searches;
                      i = nextSearch.getAndIncrement()) {
                    search.accept(i);
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
    return searches / ((System.nanoTime() - start) / 1e9);
  }

  /** Stops the server, then closes the catalog. */
  @Override
  public void close() {
    host.close();
    catalog.close();
  }
}
