package dev.tenbin.bench.bm25;

import dev.tenbin.bench.compare.CpuClock;
import dev.tenbin.bench.compare.LoadLevels;
import dev.tenbin.bench.index.Bm25CoreBenchmark;
import dev.tenbin.bench.setup.ServiceProcess;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.scoring.beir.BeirDataset;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * CPU time per BM25 search: in-process (the plain-Java core, in this JVM) against the index service
 * in a process of its own ({@link ServiceProcess}, {@code tenbin serve index}) called over loopback
 * gRPC, one query per request, at several numbers of requests in flight. CPU comes from the
 * operating system: this process's for the in-process side and the load generator, the service
 * process's for the server. The server's CPU per call over the in-process CPU per query is what
 * serving a search costs beyond the search itself, whatever the machine's cores are doing.
 *
 * <p>A third side is a bare search server in a process of its own ({@link BareSearchServer}:
 * gRPC-Java's defaults and the same core search, no Tenbin serving code), so that what the service
 * costs beyond the search splits into what gRPC-Java costs any service and what Tenbin adds.
 *
 * <p>All sides search the same corpus (the servers' copies indexed in their own processes); every
 * query's hits are compared first (same ids, bit-identical scores). Each side is warmed up ({@code
 * warmUpSearches} at the highest level); each level then runs {@code searches} searches per side in
 * two rounds, the sides alternating within each.
 */
public final class ServerCpuBenchmark {
  private static final String COLLECTION = "bench";

  /**
   * One level's figures.
   *
   * @param inFlight searches in flight (threads on each side)
   * @param inProcessCpuMicros this process's CPU per in-process search
   * @param inProcessQueriesPerSecond in-process searches per wall second
   * @param serverCpuMicros the service process's CPU per gRPC search
   * @param clientCpuMicros this process's CPU per gRPC search (the load generator)
   * @param grpcQueriesPerSecond gRPC searches per wall second
   * @param bareServerCpuMicros the bare search server's CPU per gRPC search ({@link
   *     BareSearchServer}: gRPC-Java's defaults and the same core search, no Tenbin serving code)
   * @param bareQueriesPerSecond searches per wall second against the bare server
   */
  public record Level(
      int inFlight,
      double inProcessCpuMicros,
      double inProcessQueriesPerSecond,
      double serverCpuMicros,
      double clientCpuMicros,
      double grpcQueriesPerSecond,
      double bareServerCpuMicros,
      double bareQueriesPerSecond) {
    /** Server CPU per call over in-process CPU per query. */
    public double serverOverInProcessCpu() {
      return serverCpuMicros / inProcessCpuMicros;
    }

    /** The same for the bare server: what any service on gRPC-Java pays. */
    public double bareOverInProcessCpu() {
      return bareServerCpuMicros / inProcessCpuMicros;
    }

    /** Tenbin's server CPU per call over the bare server's: Tenbin's own share. */
    public double serverOverBareCpu() {
      return serverCpuMicros / bareServerCpuMicros;
    }

    public double grpcOverInProcessThroughput() {
      return grpcQueriesPerSecond / inProcessQueriesPerSecond;
    }

    public double grpcOverBareThroughput() {
      return grpcQueriesPerSecond / bareQueriesPerSecond;
    }
  }

  public record Result(
      String dataset, int documents, int queries, int topK, int searches, List<Level> levels) {}

  private final BeirDataset dataset;
  private final Path datasetFolder;
  private final String language;
  private final int topK;
  private final int searches;
  private final int warmUpSearches;
  private final List<Integer> inFlight;

  public ServerCpuBenchmark(
      BeirDataset dataset,
      Path datasetFolder,
      String language,
      int topK,
      int searches,
      int warmUpSearches,
      List<Integer> inFlight) {
    this.dataset = dataset;
    this.datasetFolder = datasetFolder;
    this.language = language;
    this.topK = topK;
    this.searches = searches;
    this.warmUpSearches = warmUpSearches;
    this.inFlight = List.copyOf(inFlight);
  }

  public Result run(Path folder) {
    BenchInputs inputs = BenchInputs.of(dataset);
    List<String> queries = inputs.queries();
    List<Bm25CoreBenchmark.Document> coreDocs = inputs.coreDocs();
    List<Document> protoDocs = inputs.protoDocs();
    try (Bm25CoreBenchmark core = Bm25CoreBenchmark.open(folder.resolve("in-process"));
        ServiceProcess service =
            ServiceProcess.start(
                "index",
                folder.resolve("service"),
                List.of("--data-dir", folder.resolve("service").resolve("data").toString()));
        ServiceProcess bare =
            ServiceProcess.startMain(
                folder.resolve("bare"),
                BareSearchServer.class.getName(),
                port ->
                    List.of(
                        "--host",
                        "127.0.0.1",
                        "--port",
                        Integer.toString(port),
                        datasetFolder.toString(),
                        language,
                        folder.resolve("bare").resolve("data").toString()))) {
      core.ingest(COLLECTION, language, coreDocs);
      ManagedChannel channel = service.channel();
      ManagedChannel bareChannel = bare.channel();
      try {
        IndexServiceGrpc.IndexServiceBlockingStub bareIndex =
            IndexServiceGrpc.newBlockingStub(bareChannel);
        IndexServiceGrpc.IndexServiceBlockingStub index = IndexServiceGrpc.newBlockingStub(channel);
        index.createCollection(
            CreateCollectionRequest.newBuilder()
                .setSpec(CollectionSpec.newBuilder().setName(COLLECTION).setLanguage(language))
                .build());
        new CollectionIngester(IndexClient.of(channel), IndexSession.INGEST_BATCH, 600)
            .ingest(COLLECTION, protoDocs);
        List<SearchRequest> requests = new ArrayList<>();
        for (String query : queries) {
          requests.add(
              SearchRequest.newBuilder()
                  .setCollection(COLLECTION)
                  .setFamily(Family.FAMILY_BM25)
                  .setTopK(topK)
                  .addQueries(Query.newBuilder().setId("q").setText(query))
                  .build());
        }
        IntConsumer inProcess = i -> core.search(COLLECTION, queries.get(i % queries.size()), topK);
        IntConsumer overGrpc =
            i ->
                index
                    .withDeadlineAfter(60, TimeUnit.SECONDS)
                    .search(requests.get(i % requests.size()));
        IntConsumer overBare =
            i ->
                bareIndex
                    .withDeadlineAfter(60, TimeUnit.SECONDS)
                    .search(requests.get(i % requests.size()));
        for (int q = 0; q < queries.size(); q++) {
          List<Bm25CoreBenchmark.ScoredId> expected = core.hits(COLLECTION, queries.get(q), topK);
          Bm25Benchmark.requireSameHits(
              q,
              "gRPC (service process)",
              expected,
              index.search(requests.get(q)).getRankings(0).getDocumentsList());
          Bm25Benchmark.requireSameHits(
              q,
              "gRPC (bare search server)",
              expected,
              bareIndex.search(requests.get(q)).getRankings(0).getDocumentsList());
        }
        List<LoadLevels.Side> sides =
            List.of(
                new LoadLevels.Side(overBare, List.of(bare::cpuNanos)),
                new LoadLevels.Side(inProcess, List.of(CpuClock.thisProcess())),
                new LoadLevels.Side(overGrpc, List.of(service::cpuNanos, CpuClock.thisProcess())));
        int most = inFlight.stream().mapToInt(Integer::intValue).max().orElse(1);
        LoadLevels.warmUp(most, warmUpSearches, sides);
        List<Level> levels = new ArrayList<>();
        for (int threads : inFlight) {
          levels.add(level(threads, LoadLevels.measure(threads, searches, sides)));
        }
        return new Result(dataset.name(), coreDocs.size(), queries.size(), topK, searches, levels);
      } finally {
        channel.shutdownNow();
        bareChannel.shutdownNow();
      }
    }
  }

  /** A level's figures from the usage of the bare, in-process and gRPC sides, in that order. */
  private static Level level(int threads, List<LoadLevels.Usage> used) {
    LoadLevels.Usage bare = used.get(0);
    LoadLevels.Usage inProcess = used.get(1);
    LoadLevels.Usage grpc = used.get(2);
    return new Level(
        threads,
        inProcess.cpuMicrosPerCall(0),
        inProcess.callsPerSecond(),
        grpc.cpuMicrosPerCall(0),
        grpc.cpuMicrosPerCall(1),
        grpc.callsPerSecond(),
        bare.cpuMicrosPerCall(0),
        bare.callsPerSecond());
  }
}
