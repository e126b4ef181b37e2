package dev.tenbin.bench.bm25;

import dev.tenbin.bench.compare.SameHits;
import dev.tenbin.bench.index.Bm25CoreBenchmark;
import dev.tenbin.bench.setup.ScratchFolders;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.client.index.SearchStream;
import dev.tenbin.eval.retrieval.CollectionIngester;
import dev.tenbin.eval.retrieval.IndexSession;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.CollectionSpec;
import dev.tenbin.proto.index.v1.CreateCollectionRequest;
import dev.tenbin.proto.index.v1.Document;
import dev.tenbin.proto.index.v1.Family;
import dev.tenbin.proto.index.v1.IndexServiceGrpc;
import dev.tenbin.proto.index.v1.Query;
import dev.tenbin.proto.index.v1.SearchRequest;
import dev.tenbin.proto.index.v1.SearchResponse;
import dev.tenbin.scoring.beir.BeirDataset;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * BM25 indexing and search throughput, in-process (the plain-Java core) against over gRPC (a
 * loopback Netty server and client), on the same corpus and queries in one run.
 *
 * <p>Fairness: one catalog serves every path, and all search the same collection (the one indexed
 * in-process), so they read the same segments; before timing, every query's hits are compared on
 * each gRPC path, unary and stream (ids and scores must be identical, else the benchmark fails).
 * Each path first runs {@code warmUpPasses} passes over the queries, then the measured passes
 * alternate (one pass in-process, one over unary gRPC, one over the search stream) so that all
 * share the machine's noise. Indexing: one warm-up ingest of each path, then the measured one of
 * each.
 */
public final class Bm25Benchmark {
  /** Figures of one measurement. */
  public record Figures(double indexDocsPerSecond, double queriesPerSecond) {}

  /**
   * Both sides and their ratios; {@code inProcessParallelQueriesPerSecond} is the in-process search
   * spread over {@code threads} threads; {@code grpcServerSearchMicros} is the mean time per gRPC
   * query the server spent in the core's search ({@code SearchStats.search_nanos}), so {@code
   * grpcMicrosPerQuery() - grpcServerSearchMicros} is what the transport and service adapter cost.
   * {@code grpcParallelQueriesPerSecond} is the gRPC search with {@code threads} client threads,
   * each sending one query per request and waiting for its answer, over one channel: with as many
   * requests in flight as the in-process run has threads, the ratio of the two is what the service
   * costs in throughput, where the one-at-a-time ratio is dominated by the latency of the thread
   * hand-offs of each call. {@code grpcNoHitMicros} is the mean time of a gRPC search for a word no
   * document holds (one per request, as many as the measured searches): the floor of one call, what
   * the transport, the thread hand-offs and the service adapter cost with almost no search. {@code
   * grpcHealthCheckMicros} is the mean time of a {@code grpc.health.v1} check over the same channel
   * and server, as many: the same transport and hand-offs without the index service's interceptors
   * and adapter, so the floor minus it is what Tenbin's own call path adds. {@code
   * grpcParallelOwnChannelsQueriesPerSecond} is the same parallel gRPC search with a channel (one
   * HTTP/2 connection) per client thread: gRPC-Java serves each connection on one event loop on
   * either side, so the two parallel figures side by side show what that single loop costs. {@code
   * grpcBareHealthCheckMicros} is the same health check against a bare gRPC-Java server on another
   * loopback port (the health service alone, gRPC-Java's default settings and executor, no Tenbin
   * code) over a channel of its own: what a unary call costs on this machine with gRPC-Java itself,
   * the floor no service built on it can go below. {@code grpcBareSearchLengthCallMicros} is a call
   * to that bare server whose handler keeps its thread busy for the mean in-process search time:
   * what the search would cost over gRPC in a service that added nothing to gRPC-Java and searched
   * as fast as the bench's own thread. {@code bareWorkCurve} is the same call at fixed amounts of
   * handler work ({@link #BARE_WORK_MICROS}): whether what a call costs beyond its work depends on
   * how long its threads wait. {@code grpcStreamQueriesPerSecond} is the one-at-a-time search over
   * one {@code SearchStream} (the next query sent once the answer to the last has arrived): what a
   * client sending its queries one by one gets without a call per query. {@code
   * grpcStreamPipelinedServerSearchMicros} is the mean time the service spent in the core's search
   * for a request of the pipelined stream: beside {@code inProcess}'s time per query, how much
   * slower the same search runs inside the service while its transport and the client share the
   * machine.
   */
  public record Result(
      String dataset,
      int documents,
      int queries,
      int passes,
      int warmUpPasses,
      int topK,
      Figures inProcess,
      int threads,
      double inProcessParallelQueriesPerSecond,
      Figures grpc,
      double grpcServerSearchMicros,
      double grpcParallelQueriesPerSecond,
      double grpcNoHitMicros,
      double grpcHealthCheckMicros,
      double grpcParallelOwnChannelsQueriesPerSecond,
      double grpcBareHealthCheckMicros,
      double grpcBareSearchLengthCallMicros,
      List<BareWorkCall> bareWorkCurve,
      double grpcStreamQueriesPerSecond,
      double grpcStreamPipelinedQueriesPerSecond,
      double grpcStreamPipelinedServerSearchMicros) {
    public Result {
      bareWorkCurve = List.copyOf(bareWorkCurve);
    }

    public double indexRatio() {
      return grpc.indexDocsPerSecond() / inProcess.indexDocsPerSecond();
    }

    public double queryRatio() {
      return grpc.queriesPerSecond() / inProcess.queriesPerSecond();
    }

    /** Search stream over in-process queries/s, one query in flight at a time on each side. */
    public double streamQueryRatio() {
      return grpcStreamQueriesPerSecond / inProcess.queriesPerSecond();
    }

    /**
     * Pipelined search stream over in-process queries/s: {@link #PIPELINE_WINDOW} queries in flight
     * on the one stream, against one in-process search at a time.
     */
    public double pipelinedStreamQueryRatio() {
      return grpcStreamPipelinedQueriesPerSecond / inProcess.queriesPerSecond();
    }

    public double grpcStreamMicrosPerQuery() {
      return 1e6 / grpcStreamQueriesPerSecond;
    }

    /** gRPC over in-process queries/s with {@code threads} searches in flight on each side. */
    public double parallelQueryRatio() {
      return grpcParallelQueriesPerSecond / inProcessParallelQueriesPerSecond;
    }

    /** {@link #parallelQueryRatio} with a channel per client thread instead of one for all. */
    public double parallelOwnChannelsQueryRatio() {
      return grpcParallelOwnChannelsQueriesPerSecond / inProcessParallelQueriesPerSecond;
    }

    public double inProcessMicrosPerQuery() {
      return 1e6 / inProcess.queriesPerSecond();
    }

    public double grpcMicrosPerQuery() {
      return 1e6 / grpc.queriesPerSecond();
    }

    /**
     * The best one-at-a-time ratio a call with this floor allows: each search over gRPC costs at
     * least its in-process time plus {@link #grpcNoHitMicros}.
     */
    public double queryRatioCeiling() {
      return inProcessMicrosPerQuery() / (inProcessMicrosPerQuery() + grpcNoHitMicros);
    }

    /**
     * The best one-at-a-time ratio any service on gRPC-Java could reach on this machine: each
     * search costs at least its in-process time plus {@link #grpcBareHealthCheckMicros}.
     */
    public double bareQueryRatioCeiling() {
      return inProcessMicrosPerQuery() / (inProcessMicrosPerQuery() + grpcBareHealthCheckMicros);
    }

    /**
     * The best one-at-a-time ratio any service on gRPC-Java could reach here, with the waiting a
     * search-length call brings: the in-process search time over a bare call that works as long.
     */
    public double bareSearchLengthCeiling() {
      return inProcessMicrosPerQuery() / grpcBareSearchLengthCallMicros;
    }
  }

  /**
   * A call to the bare gRPC-Java server whose handler spun for {@code workMicros}; {@code
   * callMicros} is the mean time the client waited for it.
   */
  public record BareWorkCall(double workMicros, double callMicros) {
    /** What the call cost beyond its handler's work. */
    public double overheadMicros() {
      return callMicros - workMicros;
    }
  }

  /** The handler work of {@link Result#bareWorkCurve}, in microseconds. */
  public static final List<Integer> BARE_WORK_MICROS = List.of(0, 100, 200, 400, 800);

  private static final String COLLECTION = "bench";

  /**
   * The search stream's deadline: it covers the whole stream, so it is longer than any run (the
   * unary calls keep their 60 s each).
   */
  private static final long STREAM_DEADLINE_HOURS = 24;

  /**
   * Requests in flight on the pipelined search stream: a query is sent as soon as one of the
   * earlier ones is answered, so that the service, which takes one request of a stream at a time,
   * finds the next one waiting when it sends an answer.
   */
  public static final int PIPELINE_WINDOW = 8;

  private final BeirDataset dataset;
  private final String language;
  private final int passes;
  private final int warmUpPasses;
  private final int topK;
  private final int threads;

  /**
   * Searches a path runs before it is measured when none are asked for: gRPC-Java's call path is
   * Java code (transport, HTTP/2, protobuf) that the JIT compiles fully only after many thousands
   * of calls; on two cores the compilation still takes a core away well after a hundred passes of
   * msmarco-5k's 43 queries.
   */
  public static final int DEFAULT_WARM_UP_SEARCHES = 20_000;

  /**
   * Whole passes over {@code queries} queries that make at least {@link #DEFAULT_WARM_UP_SEARCHES}.
   */
  public static int defaultWarmUpPasses(int queries) {
    return Math.max(1, (DEFAULT_WARM_UP_SEARCHES + queries - 1) / Math.max(1, queries));
  }

  /**
   * Every search asks for the top {@code topK}; each path runs {@code warmUpPasses} passes before
   * the {@code passes} measured ones; the parallel in-process run uses {@code threads}.
   */
  public Bm25Benchmark(
      BeirDataset dataset, String language, int passes, int warmUpPasses, int topK, int threads) {
    this.dataset = dataset;
    this.language = language;
    this.passes = passes;
    this.warmUpPasses = warmUpPasses;
    this.topK = topK;
    this.threads = threads;
  }

  public Result run() {
    BenchInputs inputs = BenchInputs.of(dataset);
    List<String> queries = inputs.queries();
    List<Bm25CoreBenchmark.Document> coreDocs = inputs.coreDocs();
    List<Document> protoDocs = inputs.protoDocs();
    Path dir = ScratchFolders.create("tenbin-bench-");
    try (Bm25CoreBenchmark bench = Bm25CoreBenchmark.open(dir)) {
      ManagedChannel channel = channel(bench.port());
      try {
        Grpc grpc = new Grpc(channel);
        bench.ingest("warm-up-in-process", language, coreDocs);
        grpc.ingest("warm-up-grpc", protoDocs);
        bench.drop("warm-up-in-process");
        bench.drop("warm-up-grpc");
        double inProcessIndexSeconds = bench.ingest(COLLECTION, language, coreDocs);
        double grpcIndexSeconds = grpc.ingest(COLLECTION + "-grpc", protoDocs);

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
        Passes timed = passes(bench, grpc, queries, requests);
        long inProcessNanos = timed.inProcessNanos();
        int searches = queries.size() * passes;
        Floors floors =
            floors(bench, grpc, searches, Math.round((double) inProcessNanos / searches));
        Parallel parallel = parallel(bench, grpc, queries, requests);
        return new Result(
            dataset.name(),
            coreDocs.size(),
            queries.size(),
            passes,
            warmUpPasses,
            topK,
            new Figures(coreDocs.size() / inProcessIndexSeconds, searches / (inProcessNanos / 1e9)),
            threads,
            parallel.inProcess(),
            new Figures(protoDocs.size() / grpcIndexSeconds, searches / (timed.grpcNanos() / 1e9)),
            grpc.serverSearchNanos / 1e3 / searches,
            parallel.grpcOneChannel(),
            floors.noHitMicros(),
            floors.healthMicros(),
            parallel.grpcOwnChannels(),
            floors.bareHealthMicros(),
            floors.bareSearchLengthMicros(),
            floors.bareWorkCurve(),
            searches / (timed.streamNanos() / 1e9),
            searches / (timed.pipelinedNanos() / 1e9),
            timed.pipelinedServerSearchNanos() / 1e3 / searches);
      } finally {
        channel.shutdownNow();
      }
    } finally {
      ScratchFolders.delete(dir);
    }
  }

  /** Nanoseconds the measured passes of each path took in all. */
  private record Passes(
      long inProcessNanos,
      long grpcNanos,
      long streamNanos,
      long pipelinedNanos,
      long pipelinedServerSearchNanos) {}

  /**
   * Compares every query's hits on each gRPC path with the in-process ones, then runs the warm-up
   * and measured passes, alternating the paths in each. The search stream is opened for this and
   * closed after it, so it holds no call of the server's while the other figures are measured.
   */
  private Passes passes(
      Bm25CoreBenchmark bench, Grpc grpc, List<String> queries, List<SearchRequest> requests) {
    try (SearchStream stream =
        IndexClient.of(grpc.channel)
            .searchStream(Deadline.after(STREAM_DEADLINE_HOURS, TimeUnit.HOURS))) {
      for (int q = 0; q < queries.size(); q++) {
        List<Bm25CoreBenchmark.ScoredId> expected = bench.hits(COLLECTION, queries.get(q), topK);
        requireSameHits(q, "gRPC", expected, grpc.search(requests.get(q)));
        requireSameHits(q, "gRPC stream", expected, streamed(stream, requests.get(q)));
      }
      List<SearchResponse> pipelinedAnswers = pipelined(stream, requests);
      for (int q = 0; q < queries.size(); q++) {
        requireSameHits(
            q,
            "gRPC stream, pipelined",
            bench.hits(COLLECTION, queries.get(q), topK),
            pipelinedAnswers.get(q).getRankings(0).getDocumentsList());
      }
      long inProcessNanos = 0;
      long grpcNanos = 0;
      long streamNanos = 0;
      long pipelinedNanos = 0;
      long pipelinedServerSearchNanos = 0;
      for (int pass = 0; pass < warmUpPasses + passes; pass++) {
        boolean measured = pass >= warmUpPasses;
        if (measured && pass == warmUpPasses) {
          grpc.serverSearchNanos = 0;
        }
        long start = System.nanoTime();
        for (String query : queries) {
          bench.search(COLLECTION, query, topK);
        }
        long unaryStart = System.nanoTime();
        for (SearchRequest request : requests) {
          grpc.search(request);
        }
        long streamStart = System.nanoTime();
        for (SearchRequest request : requests) {
          streamed(stream, request);
        }
        long pipelinedStart = System.nanoTime();
        List<SearchResponse> answers = pipelined(stream, requests);
        long end = System.nanoTime();
        if (measured) {
          for (SearchResponse answer : answers) {
            pipelinedServerSearchNanos += answer.getStats().getSearchNanos();
          }
          inProcessNanos += unaryStart - start;
          grpcNanos += streamStart - unaryStart;
          streamNanos += pipelinedStart - streamStart;
          pipelinedNanos += end - pipelinedStart;
        }
      }
      return new Passes(
          inProcessNanos, grpcNanos, streamNanos, pipelinedNanos, pipelinedServerSearchNanos);
    }
  }

  /** The mean times of the calls with little or no search in them, in microseconds. */
  private record Floors(
      double noHitMicros,
      double healthMicros,
      double bareHealthMicros,
      double bareSearchLengthMicros,
      List<BareWorkCall> bareWorkCurve) {}

  /**
   * The call floors: {@code searches} calls of each kind to warm up, then as many measured in two
   * alternating halves, so the floors, the health checks and the bare calls share the machine's
   * noise. {@code searchLengthNanos} is the mean in-process search time.
   */
  private Floors floors(Bm25CoreBenchmark bench, Grpc grpc, int searches, long searchLengthNanos) {
    SearchRequest noHit = noHitRequest(bench);
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(grpc.channel);
    HealthCheckRequest check = HealthCheckRequest.getDefaultInstance();
    Runnable checkHealth = () -> health.withDeadlineAfter(60, TimeUnit.SECONDS).check(check);
    timed(searches, () -> grpc.search(noHit));
    timed(searches, checkHealth);
    try (BareGrpcServer bare = BareGrpcServer.start()) {
      timed(searches, bare::checkHealth);
      timed(searches, () -> bare.work(searchLengthNanos));
      int perHalf = Math.max(1, searches / 2);
      long noHitNanos = 0;
      long healthNanos = 0;
      long bareHealthNanos = 0;
      long bareSearchLengthNanos = 0;
      long[] bareWorkNanos = new long[BARE_WORK_MICROS.size()];
      for (int half = 0; half < 2; half++) {
        noHitNanos += timed(perHalf, () -> grpc.search(noHit));
        healthNanos += timed(perHalf, checkHealth);
        bareHealthNanos += timed(perHalf, bare::checkHealth);
        bareSearchLengthNanos += timed(perHalf, () -> bare.work(searchLengthNanos));
        for (int level = 0; level < bareWorkNanos.length; level++) {
          long work = BARE_WORK_MICROS.get(level) * 1_000L;
          bareWorkNanos[level] += timed(perHalf, () -> bare.work(work));
        }
      }
      double calls = 2.0 * perHalf;
      List<BareWorkCall> curve = new ArrayList<>();
      for (int level = 0; level < bareWorkNanos.length; level++) {
        curve.add(
            new BareWorkCall(BARE_WORK_MICROS.get(level), bareWorkNanos[level] / 1e3 / calls));
      }
      return new Floors(
          noHitNanos / 1e3 / calls,
          healthNanos / 1e3 / calls,
          bareHealthNanos / 1e3 / calls,
          bareSearchLengthNanos / 1e3 / calls,
          curve);
    }
  }

  /** Nanoseconds {@code calls} runs of {@code call}, one after the other, took. */
  private static long timed(int calls, Runnable call) {
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      call.run();
    }
    return System.nanoTime() - start;
  }

  /** Queries per second with {@code threads} searches in flight on each side. */
  private record Parallel(double inProcess, double grpcOneChannel, double grpcOwnChannels) {}

  /**
   * One warm-up round of each side, then the measured round of each; the gRPC side once over the
   * one channel, once over a channel per client thread.
   */
  private Parallel parallel(
      Bm25CoreBenchmark bench, Grpc grpc, List<String> queries, List<SearchRequest> requests) {
    List<ManagedChannel> own = new ArrayList<>();
    try {
      List<IndexServiceGrpc.IndexServiceBlockingStub> ownStubs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        own.add(channel(bench.port()));
        ownStubs.add(IndexServiceGrpc.newBlockingStub(own.getLast()));
      }
      Parallel measured = null;
      for (int round = 0; round < 2; round++) {
        measured =
            new Parallel(
                bench.parallelQueriesPerSecond(COLLECTION, queries, passes, topK, threads),
                parallelQueriesPerSecond(List.of(grpc.index), requests, passes, threads),
                parallelQueriesPerSecond(ownStubs, requests, passes, threads));
      }
      return measured;
    } finally {
      own.forEach(ManagedChannel::shutdownNow);
    }
  }

  private static ManagedChannel channel(int port) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  /**
   * Every request {@code passes} times, sent by {@code threads} client threads (each waits for its
   * answer before sending the next; thread t uses {@code stubs[t % stubs.size()]}); returns queries
   * per second.
   */
  private static double parallelQueriesPerSecond(
      List<IndexServiceGrpc.IndexServiceBlockingStub> stubs,
      List<SearchRequest> requests,
      int passes,
      int threads) {
    return Bm25CoreBenchmark.searchesPerSecond(
        requests.size() * passes,
        threads,
        thread -> {
          IndexServiceGrpc.IndexServiceBlockingStub stub = stubs.get(thread % stubs.size());
          return i ->
              stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                  .search(requests.get(i % requests.size()));
        });
  }

  /** A search for a word the collection does not hold (checked in-process: no hits). */
  private SearchRequest noHitRequest(Bm25CoreBenchmark bench) {
    String word = "tenbinnohitq";
    for (int n = 0; !bench.hits(COLLECTION, word, topK).isEmpty(); n++) {
      word = "tenbinnohitq" + n;
    }
    return SearchRequest.newBuilder()
        .setCollection(COLLECTION)
        .setFamily(Family.FAMILY_BM25)
        .setTopK(topK)
        .addQueries(Query.newBuilder().setId("q").setText(word))
        .build();
  }

  /** The client side: ingest and one-query searches over the channel. */
  private final class Grpc {
    private final ManagedChannel channel;
    private final IndexServiceGrpc.IndexServiceBlockingStub index;
    private long serverSearchNanos;

    Grpc(ManagedChannel channel) {
      this.channel = channel;
      this.index = IndexServiceGrpc.newBlockingStub(channel);
    }

    double ingest(String name, List<Document> docs) {
      index.createCollection(
          CreateCollectionRequest.newBuilder()
              .setSpec(CollectionSpec.newBuilder().setName(name).setLanguage(language))
              .build());
      long start = System.nanoTime();
      new CollectionIngester(IndexClient.of(channel), IndexSession.INGEST_BATCH, 600)
          .mergingAtTheEnd()
          .ingest(name, docs);
      return (System.nanoTime() - start) / 1e9;
    }

    List<ScoredDocument> search(SearchRequest request) {
      SearchResponse response = index.withDeadlineAfter(60, TimeUnit.SECONDS).search(request);
      serverSearchNanos += response.getStats().getSearchNanos();
      return response.getRankings(0).getDocumentsList();
    }
  }

  /**
   * The answers to {@code requests} over {@code stream}, in order, with up to {@link
   * #PIPELINE_WINDOW} of them in flight.
   */
  private static List<SearchResponse> pipelined(SearchStream stream, List<SearchRequest> requests) {
    List<SearchResponse> answers = new ArrayList<>(requests.size());
    int sent = 0;
    while (sent < Math.min(PIPELINE_WINDOW, requests.size())) {
      stream.send(requests.get(sent++));
    }
    while (answers.size() < requests.size()) {
      answers.add(stream.next());
      if (sent < requests.size()) {
        stream.send(requests.get(sent++));
      }
    }
    return answers;
  }

  /** The hits of the one query of {@code request}, searched over {@code stream}. */
  private static List<ScoredDocument> streamed(SearchStream stream, SearchRequest request) {
    return stream.search(request).getRankings(0).getDocumentsList();
  }

  /**
   * Fails unless {@code grpc}, the hits of query {@code query} over the gRPC path named {@code
   * path}, are the in-process hits: the same ids in the same order with bit-identical scores
   * ({@link SameHits}).
   */
  static void requireSameHits(
      int query,
      String path,
      List<Bm25CoreBenchmark.ScoredId> inProcess,
      List<ScoredDocument> grpc) {
    SameHits.require(
        query,
        path,
        inProcess.stream().map(hit -> SameHits.hit(hit.docId(), hit.score())).toList(),
        grpc);
  }
}
