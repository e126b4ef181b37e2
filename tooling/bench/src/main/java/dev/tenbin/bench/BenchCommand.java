package dev.tenbin.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tenbin.bench.bm25.Bm25Benchmark;
import dev.tenbin.bench.compare.LoadLevels;
import dev.tenbin.bench.rerank.RerankServerCpuBenchmark;
import dev.tenbin.bench.rerank.RerankServerCpuReport;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.BeirDatasetReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tenbin bench}: throughput figures for BENCHMARKS.md, measured side by side. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Measure throughput, in-process against over gRPC, in one run.",
    subcommands = {
      BenchCommand.Bm25.class,
      BenchCommand.Lucene.class,
      BenchCommand.Encoder.class,
      BenchCommand.Rerank.class,
      BenchCommand.Index.class,
      BenchCommand.IndexScaling.class,
      BenchCommand.Metrics.class,
      BenchCommand.Corpus.class
    })
public final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
  }

  /** {@code tenbin bench corpus --documents N --out DIR}. */
  @Command(
      name = "corpus",
      mixinStandardHelpOptions = true,
      description =
          "Write a seeded BEIR-format collection of any size for scale benchmarks: passages of"
              + " made-up words drawn with Zipf's law, queries drawn from one passage each (that"
              + " passage judged relevant). The same options write the same bytes.")
  static final class Corpus implements Callable<Integer> {
    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder to write.")
    Path out;

    @Option(names = "--documents", defaultValue = "1000000", paramLabel = "N")
    int documents;

    @Option(names = "--queries", defaultValue = "1000", paramLabel = "N")
    int queries;

    @Option(names = "--vocabulary", defaultValue = "100000", paramLabel = "N")
    int vocabulary;

    @Option(names = "--min-words", defaultValue = "40", paramLabel = "N")
    int minWords;

    @Option(names = "--max-words", defaultValue = "90", paramLabel = "N")
    int maxWords;

    @Option(names = "--seed", defaultValue = "42", paramLabel = "N")
    long seed;

    @Option(names = "--gzip", description = "Write corpus.jsonl.gz instead of corpus.jsonl.")
    boolean gzip;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      dev.tenbin.bench.corpus.GeneratedCorpus corpus;
      try {
        corpus =
            new dev.tenbin.bench.corpus.GeneratedCorpus(
                documents, queries, vocabulary, minWords, maxWords, seed, gzip);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      long start = System.nanoTime();
      corpus.write(out);
      spec.commandLine()
          .getErr()
          .printf(
              Locale.ROOT,
              "tenbin: wrote %,d documents and %,d queries to %s in %.1f s%n",
              documents,
              queries,
              out,
              (System.nanoTime() - start) / 1e9);
      return 0;
    }
  }

  /** {@code tenbin bench lucene --dataset DIR}. */
  @Command(
      name = "lucene",
      mixinStandardHelpOptions = true,
      description = {
        "Lucene alone indexing a corpus: the floor under the BM25 ingest on this machine. The"
            + " corpus is read as an evaluation reads it and each document gets the fields and"
            + " analyzer of a BM25 collection, added by one IndexWriter from --threads threads"
            + " (1 GiB buffer, one commit at the end, or also every --commit-every documents)."
            + " Nothing else of what an ingest does: no ordinals, no digests, no gRPC.",
        "Prints documents/s over the reading, the indexing and the commit."
      })
  static final class Lucene implements Callable<Integer> {
    @Option(names = "--dataset", required = true, paramLabel = "DIR")
    Path dataset;

    @Option(
        names = "--language",
        defaultValue = "en",
        paramLabel = "CODE",
        description = "The analyzer's language (default ${DEFAULT-VALUE}).")
    String language;

    @Option(
        names = "--threads",
        paramLabel = "N",
        description = "Indexing threads (default: the available cores).")
    Integer threads;

    @Option(
        names = "--commit-every",
        defaultValue = "0",
        paramLabel = "N",
        description =
            "Commit after every N documents as well, as an ingest commits each corpus slice of"
                + " 4,096 (default 0: only at the end).")
    int commitEvery;

    @Option(
        names = "--index",
        paramLabel = "DIR",
        description =
            "Folder to write the index in, which must not exist (default: a new folder in the"
                + " system's temporary folder, deleted at the end).")
    Path index;

    @Option(names = "--json")
    boolean json;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws java.io.IOException {
      int indexingThreads = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
      if (indexingThreads < 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--threads must be at least 1");
      }
      if (commitEvery < 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--commit-every must be at least 0");
      }
      String lang;
      try {
        lang = dev.tenbin.index.lexical.LanguageAnalyzers.normalize(language);
      } catch (RuntimeException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--language: " + e.getMessage());
      }
      if (index != null && java.nio.file.Files.exists(index)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--index " + index + " exists; name a folder to create");
      }
      BeirDataset data = BeirDatasetReader.read(dataset);
      Path folder =
          index != null
              ? java.nio.file.Files.createDirectories(index)
              : dev.tenbin.bench.setup.ScratchFolders.create("tenbin-lucene-");
      dev.tenbin.bench.index.LuceneIndexing.Result result;
      try (dev.tenbin.scoring.beir.Corpus.Walk corpus = data.corpus().walk()) {
        result =
            dev.tenbin.bench.index.LuceneIndexing.index(
                new java.util.Iterator<>() {
                  @Override
                  public boolean hasNext() {
                    return corpus.hasNext();
                  }

                  @Override
                  public dev.tenbin.index.lexical.LexicalDocument next() {
                    var document = corpus.next();
                    return new dev.tenbin.index.lexical.LexicalDocument(
                        document.id(), document.title(), document.text());
                  }
                },
                lang,
                indexingThreads,
                commitEvery,
                folder);
      } finally {
        if (index == null) {
          dev.tenbin.bench.setup.ScratchFolders.delete(folder);
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode root = new ObjectMapper().createObjectNode();
        root.put("dataset", dataset.getFileName().toString());
        root.put("documents", result.documents());
        root.put("language", lang);
        root.put("threads", indexingThreads);
        root.put("ram_buffer_mb", dev.tenbin.bench.index.LuceneIndexing.RAM_BUFFER_MB);
        root.put("index_seconds", result.seconds());
        root.put("index_docs_per_s", result.documentsPerSecond());
        root.put("commits", result.commits());
        root.put("segments", result.segments());
        out.println(root);
      } else {
        out.printf(
            Locale.ROOT,
            "Lucene alone on %s: %,d documents in %.1f s (%,.0f documents/s), %d indexing"
                + " thread(s), %,d commit(s), %d segment(s)%n",
            dataset.getFileName(),
            result.documents(),
            result.seconds(),
            result.documentsPerSecond(),
            indexingThreads,
            result.commits(),
            result.segments());
      }
      return 0;
    }
  }

  /** {@code tenbin bench bm25 --dataset DIR}. */
  @Command(
      name = "bm25",
      mixinStandardHelpOptions = true,
      description = "BM25 indexing docs/s and queries/s, in-process vs over gRPC (loopback).")
  static final class Bm25 implements Callable<Integer> {
    @Option(names = "--dataset", required = true, paramLabel = "DIR")
    Path dataset;

    @Option(names = "--language", paramLabel = "CODE")
    String language;

    @Option(
        names = "--passes",
        defaultValue = "5",
        description = "Measured search passes over the queries, on each path.")
    int passes;

    @Option(
        names = "--warm-up-passes",
        paramLabel = "N",
        description =
            "Passes over the queries each path runs before the measured ones (default: enough"
                + " for 20,000 searches a path, at least one): gRPC-Java's call path is Java code"
                + " that the JIT compiles fully only after thousands of calls.")
    Integer warmUpPasses;

    @Option(
        names = "--top-k",
        defaultValue = "100",
        paramLabel = "K",
        description = "Hits each search asks for.")
    int topK;

    @Option(
        names = "--threads",
        paramLabel = "N",
        description =
            "Threads of the parallel search: in-process threads, and gRPC client threads with"
                + " one request each in flight (default: the available cores).")
    Integer threads;

    @Option(names = "--json")
    boolean json;

    @Option(
        names = "--server-cpu",
        description =
            "Measure only CPU per search: in-process against the index service in its own process"
                + " (tenbin serve index), its CPU read from the OS, at each --in-flight level.")
    boolean serverCpu;

    @CommandLine.Mixin InFlight inFlight = new InFlight();

    @Option(
        names = "--searches",
        defaultValue = "4000",
        paramLabel = "N",
        description =
            "With --server-cpu: measured searches per side and level (default ${DEFAULT-VALUE}).")
    int searches;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (passes < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--passes must be at least 1");
      }
      if (topK < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--top-k must be at least 1");
      }
      if (warmUpPasses != null && warmUpPasses < 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--warm-up-passes must be at least 0");
      }
      int searchThreads = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
      if (searchThreads < 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--threads must be at least 1");
      }
      BeirDataset data = BeirDatasetReader.read(dataset);
      String lang;
      try (var services = dev.tenbin.eval.services.Services.connect(null)) {
        lang =
            dev.tenbin.eval.services.IndexLanguage.resolve(
                    services.index(), language, data::textSample)
                .code();
      }
      if (serverCpu) {
        return serverCpu(data, lang);
      }
      Bm25Benchmark.Result result =
          new Bm25Benchmark(
                  data,
                  lang,
                  passes,
                  warmUpPasses != null
                      ? warmUpPasses
                      : Bm25Benchmark.defaultWarmUpPasses(data.evaluatedQueryIds().size()),
                  topK,
                  searchThreads)
              .run();
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode root = new ObjectMapper().createObjectNode();
        root.put("dataset", result.dataset());
        root.put("documents", result.documents());
        root.put("queries", result.queries());
        root.put("passes", result.passes());
        root.put("top_k", result.topK());
        root.put("threads", result.threads());
        root.put("in_process_parallel_queries_per_s", result.inProcessParallelQueriesPerSecond());
        root.put("in_process_index_docs_per_s", result.inProcess().indexDocsPerSecond());
        root.put("grpc_index_docs_per_s", result.grpc().indexDocsPerSecond());
        root.put("index_grpc_over_in_process", result.indexRatio());
        root.put("in_process_queries_per_s", result.inProcess().queriesPerSecond());
        root.put("grpc_queries_per_s", result.grpc().queriesPerSecond());
        root.put("query_grpc_over_in_process", result.queryRatio());
        root.put("grpc_stream_queries_per_s", result.grpcStreamQueriesPerSecond());
        root.put("grpc_stream_us_per_query", result.grpcStreamMicrosPerQuery());
        root.put("query_grpc_stream_over_in_process", result.streamQueryRatio());
        root.put(
            "grpc_stream_pipelined_queries_per_s", result.grpcStreamPipelinedQueriesPerSecond());
        root.put("stream_pipeline_window", Bm25Benchmark.PIPELINE_WINDOW);
        root.put("query_grpc_stream_pipelined_over_in_process", result.pipelinedStreamQueryRatio());
        root.put(
            "grpc_stream_pipelined_server_search_us_per_query",
            result.grpcStreamPipelinedServerSearchMicros());
        root.put("warm_up_passes", result.warmUpPasses());
        root.put("in_process_us_per_query", result.inProcessMicrosPerQuery());
        root.put("grpc_us_per_query", result.grpcMicrosPerQuery());
        root.put("grpc_server_search_us_per_query", result.grpcServerSearchMicros());
        root.put("grpc_parallel_queries_per_s", result.grpcParallelQueriesPerSecond());
        root.put("parallel_query_grpc_over_in_process", result.parallelQueryRatio());
        root.put(
            "grpc_parallel_own_channels_queries_per_s",
            result.grpcParallelOwnChannelsQueriesPerSecond());
        root.put(
            "parallel_own_channels_query_grpc_over_in_process",
            result.parallelOwnChannelsQueryRatio());
        root.put("grpc_no_hit_us_per_call", result.grpcNoHitMicros());
        root.put("grpc_health_check_us_per_call", result.grpcHealthCheckMicros());
        root.put("query_grpc_over_in_process_ceiling", result.queryRatioCeiling());
        root.put("grpc_bare_health_check_us_per_call", result.grpcBareHealthCheckMicros());
        root.put("query_grpc_over_in_process_bare_ceiling", result.bareQueryRatioCeiling());
        root.put(
            "grpc_bare_search_length_call_us_per_call", result.grpcBareSearchLengthCallMicros());
        root.put(
            "query_grpc_over_in_process_bare_search_length_ceiling",
            result.bareSearchLengthCeiling());
        ArrayNode curve = root.putArray("grpc_bare_work_curve");
        for (Bm25Benchmark.BareWorkCall call : result.bareWorkCurve()) {
          curve
              .addObject()
              .put("work_us", call.workMicros())
              .put("call_us", call.callMicros())
              .put("beyond_work_us", call.overheadMicros());
        }
        out.println(root);
      } else {
        out.printf(
            Locale.ROOT,
            "BM25 on %s (%d docs, %d queries x %d passes after %d warm-up passes, top %d;%n"
                + "every path searches one collection and returned the same hits; passes alternate)%n"
                + "                 index docs/s   queries/s   us/query%n"
                + "in-process       %12.0f %11.0f %10.0f%n"
                + "in-process, %2d threads      %11.0f%n"
                + "gRPC (loopback)  %12.0f %11.0f %10.0f  (%.0f us of it in the server's search)%n"
                + "gRPC/in-process  %12.2f %11.2f%n"
                + "gRPC search stream            %11.0f %10.0f  (one stream, the next query sent after"
                + " the last answer)%n"
                + "stream/in-process             %11.2f%n"
                + "gRPC stream, pipelined        %11.0f  (%d queries in flight on the one stream;"
                + " /in-process %.2f; %.0f us a query in the server's search)%n"
                + "gRPC, %2d threads            %11.0f  (one query per request, %d in flight)%n"
                + "gRPC/in-process, %2d threads %11.2f%n"
                + "gRPC, %2d threads, a channel each %6.0f  (gRPC/in-process %.2f)%n"
                + "gRPC call floor: %.0f us (a search no document matches), so one query per"
                + " request is at most %.2f of in-process%n"
                + "gRPC health check: %.0f us (same channel and server, without the index service's"
                + " interceptors and adapter)%n"
                + "bare gRPC-Java health check: %.0f us (a server with gRPC-Java's defaults and no"
                + " Tenbin code), so no service on gRPC-Java reaches more than %.2f here%n"
                + "bare gRPC-Java call that works as long as an in-process search (%.0f us): %.0f"
                + " us, so at most %.2f with that call's waiting%n",
            result.dataset(),
            result.documents(),
            result.queries(),
            result.passes(),
            result.warmUpPasses(),
            result.topK(),
            result.inProcess().indexDocsPerSecond(),
            result.inProcess().queriesPerSecond(),
            result.inProcessMicrosPerQuery(),
            result.threads(),
            result.inProcessParallelQueriesPerSecond(),
            result.grpc().indexDocsPerSecond(),
            result.grpc().queriesPerSecond(),
            result.grpcMicrosPerQuery(),
            result.grpcServerSearchMicros(),
            result.indexRatio(),
            result.queryRatio(),
            result.grpcStreamQueriesPerSecond(),
            result.grpcStreamMicrosPerQuery(),
            result.streamQueryRatio(),
            result.grpcStreamPipelinedQueriesPerSecond(),
            Bm25Benchmark.PIPELINE_WINDOW,
            result.pipelinedStreamQueryRatio(),
            result.grpcStreamPipelinedServerSearchMicros(),
            result.threads(),
            result.grpcParallelQueriesPerSecond(),
            result.threads(),
            result.threads(),
            result.parallelQueryRatio(),
            result.threads(),
            result.grpcParallelOwnChannelsQueriesPerSecond(),
            result.parallelOwnChannelsQueryRatio(),
            result.grpcNoHitMicros(),
            result.queryRatioCeiling(),
            result.grpcHealthCheckMicros(),
            result.grpcBareHealthCheckMicros(),
            result.bareQueryRatioCeiling(),
            result.inProcessMicrosPerQuery(),
            result.grpcBareSearchLengthCallMicros(),
            result.bareSearchLengthCeiling());
        out.printf(
            Locale.ROOT, "bare gRPC-Java call   handler work us   call us   beyond the work us%n");
        for (Bm25Benchmark.BareWorkCall call : result.bareWorkCurve()) {
          out.printf(
              Locale.ROOT,
              "                      %15.0f %9.0f %20.0f%n",
              call.workMicros(),
              call.callMicros(),
              call.overheadMicros());
        }
      }
      out.flush();
      return 0;
    }

    private int serverCpu(BeirDataset data, String lang) {
      int cores = Runtime.getRuntime().availableProcessors();
      List<Integer> levels = inFlight.levels(spec, cores);
      if (searches < 2) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--searches must be at least 2, got " + searches);
      }
      int warmUp =
          warmUpPasses != null
              ? warmUpPasses * data.evaluatedQueryIds().size()
              : Bm25Benchmark.DEFAULT_WARM_UP_SEARCHES;
      Path folder = dev.tenbin.bench.setup.ScratchFolders.create("tenbin-bench-server-cpu-");
      dev.tenbin.bench.bm25.ServerCpuBenchmark.Result r;
      try {
        r =
            new dev.tenbin.bench.bm25.ServerCpuBenchmark(
                    data, dataset, lang, topK, searches, warmUp, levels)
                .run(folder);
      } finally {
        dev.tenbin.bench.setup.ScratchFolders.delete(folder);
      }
      PrintWriter out = spec.commandLine().getOut();
      ObjectNode root = new ObjectMapper().createObjectNode();
      root.put("dataset", r.dataset());
      root.put("documents", r.documents());
      root.put("queries", r.queries());
      root.put("top_k", r.topK());
      root.put("searches_per_level", r.searches());
      root.put("cores", cores);
      ArrayNode rows = root.putArray("levels");
      for (var level : r.levels()) {
        ObjectNode row = rows.addObject();
        row.put("in_flight", level.inFlight());
        row.put("in_process_cpu_us_per_query", level.inProcessCpuMicros());
        row.put("server_cpu_us_per_call", level.serverCpuMicros());
        row.put("server_over_in_process_cpu", level.serverOverInProcessCpu());
        row.put("client_cpu_us_per_call", level.clientCpuMicros());
        row.put("in_process_queries_per_s", level.inProcessQueriesPerSecond());
        row.put("grpc_queries_per_s", level.grpcQueriesPerSecond());
        row.put("grpc_over_in_process_throughput", level.grpcOverInProcessThroughput());
        row.put("bare_server_cpu_us_per_call", level.bareServerCpuMicros());
        row.put("bare_over_in_process_cpu", level.bareOverInProcessCpu());
        row.put("server_over_bare_cpu", level.serverOverBareCpu());
        row.put("bare_queries_per_s", level.bareQueriesPerSecond());
        row.put("grpc_over_bare_throughput", level.grpcOverBareThroughput());
      }
      if (json) {
        out.println(root);
      } else {
        out.printf(
            Locale.ROOT,
            "%s: %d documents, %d queries, top %d, %d searches per side and level, %d cores%n",
            r.dataset(),
            r.documents(),
            r.queries(),
            r.topK(),
            r.searches(),
            cores);
        out.printf(
            Locale.ROOT,
            "%9s %14s %14s %10s %12s %10s %12s %12s %12s %10s%n",
            "in flight",
            "in-proc cpu us",
            "server cpu us",
            "server/in",
            "bare cpu us",
            "server/bare",
            "in-proc q/s",
            "gRPC q/s",
            "bare q/s",
            "gRPC/in");
        for (var level : r.levels()) {
          out.printf(
              Locale.ROOT,
              "%9d %14.1f %14.1f %10.2f %12.1f %10.2f %12.0f %12.0f %12.0f %10.2f%n",
              level.inFlight(),
              level.inProcessCpuMicros(),
              level.serverCpuMicros(),
              level.serverOverInProcessCpu(),
              level.bareServerCpuMicros(),
              level.serverOverBareCpu(),
              level.inProcessQueriesPerSecond(),
              level.grpcQueriesPerSecond(),
              level.bareQueriesPerSecond(),
              level.grpcOverInProcessThroughput());
        }
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tenbin bench encoder --model MODEL}. */
  @Command(
      name = "encoder",
      mixinStandardHelpOptions = true,
      description =
          "Encoder documents/s in-process vs over gRPC, token-budget vs fixed-32 batching, full vs"
              + " LightRetriever query latency, and the LightRetriever cache build (built if missing).")
  static final class Encoder implements Callable<Integer> {
    @Option(names = "--model", required = true)
    String model;

    @Option(
        names = "--dataset",
        paramLabel = "DIR",
        description =
            "Take documents and queries from this BEIR folder (default: seeded synthetic mixed-length texts).")
    Path dataset;

    @Option(
        names = "--documents",
        defaultValue = "256",
        description = "Documents encoded per measurement.")
    int documents;

    @Option(names = "--queries", defaultValue = "100", description = "Queries timed one at a time.")
    int queries;

    @Option(names = "--cache-dir", defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}")
    Path cacheDirectory;

    @Option(
        names = "--queue-delay-ms",
        defaultValue = "2",
        description =
            "The batcher's maximum queue delay on the full query path behind full_query_us (default"
                + " ${DEFAULT-VALUE}, the service's); full_query_no_queue_delay_us is always measured"
                + " with none.")
    long queueDelayMs;

    @Option(names = "--json")
    boolean json;

    @Option(
        names = "--throughput",
        description =
            "Measure only documents/s in-process at each --batch-tokens budget and the achieved"
                + " FLOP/s against the FMA peak (skips gRPC, fixed-32, query latency and the"
                + " LightRetriever cache).")
    boolean throughput;

    @Option(
        names = "--batch-tokens",
        split = ",",
        paramLabel = "N",
        defaultValue = "2048,4096,8192,16384,32768",
        description =
            "With --throughput: the token budgets per pass tried (default ${DEFAULT-VALUE}).")
    java.util.List<Integer> batchTokens;

    @Option(
        names = "--passes",
        defaultValue = "3",
        description = "With --throughput: timed passes per budget, the fastest counts.")
    int passes;

    @Option(
        names = "--threads",
        defaultValue = "0",
        description =
            "ONNX Runtime intra-op threads (default 0: ONNX Runtime's choice, one per core).")
    int threads;

    @Option(
        names = "--peak-gflops",
        defaultValue = "0",
        description =
            "With --throughput: the FMA peak to divide by (the figure of ./tenbin jmh"
                + " 'DenseScanBenchmarks.fmaPeak'); default: measured in this run with the same kernel.")
    double peakGflops;

    @Option(
        names = "--texts-out",
        paramLabel = "FILE",
        description =
            "With --throughput: write the encoded texts, document prompt included, one JSON string per line.")
    Path textsOut;

    @Option(
        names = "--vectors-out",
        paramLabel = "FILE",
        description =
            "With --throughput: write the vectors, float32 little-endian, documents × dimension, in"
                + " document order.")
    Path vectorsOut;

    @CommandLine.Mixin
    dev.tenbin.model.onnx.ExecutionOptions execution = new dev.tenbin.model.onnx.ExecutionOptions();

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      execution.check();
      if (queueDelayMs < 0) {
        spec.commandLine().getErr().println("tenbin: --queue-delay-ms must not be negative");
        return 2;
      }
      if (threads < 0 || passes < 1 || batchTokens.stream().anyMatch(b -> b < 1)) {
        spec.commandLine()
            .getErr()
            .println(
                "tenbin: --threads must not be negative, --passes and every --batch-tokens must be"
                    + " positive");
        return 2;
      }
      if (!throughput && (textsOut != null || vectorsOut != null)) {
        spec.commandLine()
            .getErr()
            .println("tenbin: --texts-out and --vectors-out need --throughput");
        return 2;
      }
      java.util.List<String> docs = new java.util.ArrayList<>();
      java.util.List<String> qs = new java.util.ArrayList<>();
      if (dataset != null) {
        BeirDataset data = BeirDatasetReader.read(dataset);
        data.corpus().head(documents).forEach(d -> docs.add(d.titleAndText()));
        data.evaluatedQueryIds().stream()
            .limit(queries)
            .forEach(id -> qs.add(data.queries().get(id)));
      } else {
        java.util.Random random = new java.util.Random(17);
        String[] words =
            "the of retrieval model vector index query document score rank dense sparse token batch latency memory quantized binary cosine passage answer"
                .split(" ");
        for (int i = 0; i < documents; i++) {
          int length = 8 + random.nextInt(248);
          StringBuilder text = new StringBuilder();
          for (int w = 0; w < length; w++) {
            text.append(words[random.nextInt(words.length)]).append(' ');
          }
          docs.add(text.toString().trim());
        }
        for (int i = 0; i < queries; i++) {
          qs.add(
              words[random.nextInt(words.length)]
                  + " "
                  + words[random.nextInt(words.length)]
                  + " "
                  + words[random.nextInt(words.length)]);
        }
      }
      PrintWriter err = spec.commandLine().getErr();
      var config =
          dev.tenbin.encoder.config.EncoderServiceConfig.embedded(Path.of("models"), cacheDirectory)
              .withMaxQueueDelay(java.time.Duration.ofMillis(queueDelayMs))
              .withExecution(execution);
      if (threads > 0) {
        config = config.withRuntime(config.runtime().withThreads(threads));
      }
      if (throughput) {
        return throughput(config, docs);
      }
      dev.tenbin.bench.encoder.EncoderBenchmark.Result r =
          dev.tenbin.bench.encoder.EncoderBenchmark.run(
              config,
              model,
              docs,
              qs,
              done -> {
                err.printf("\rtenbin: LightRetriever cache %d rows", done);
                err.flush();
              });
      err.println();
      ObjectNode root = new ObjectMapper().createObjectNode();
      root.put("model", r.model());
      root.put("execution_provider", execution.provider());
      root.put("device", execution.device());
      root.put("documents", r.documents());
      root.put("in_process_docs_per_s", r.inProcessDocsPerSecond());
      root.put("grpc_docs_per_s", r.grpcDocsPerSecond());
      root.put("grpc_over_in_process", r.grpcOverInProcess());
      root.put("grpc_in_process_transport_docs_per_s", r.grpcInProcessTransportDocsPerSecond());
      root.put("token_budget_docs_per_s", r.tokenBudgetDocsPerSecond());
      root.put("fixed32_docs_per_s", r.fixed32DocsPerSecond());
      root.put("token_budget_over_fixed32", r.tokenBudgetOverFixed32());
      root.put("full_query_us", r.fullQueryMicros());
      root.put("light_query_us", r.lightQueryMicros());
      root.put("light_speedup", r.lightSpeedup());
      root.put("queue_delay_ms", r.queueDelayMillis());
      root.put("full_query_no_queue_delay_us", r.fullQueryNoQueueDelayMicros());
      root.put("light_speedup_no_queue_delay", r.lightSpeedupNoQueueDelay());
      root.put("full_queries_per_s", r.fullQueriesPerSecond());
      root.put("light_queries_per_s", r.lightQueriesPerSecond());
      root.put("cache_build_s", r.cacheBuildSeconds());
      root.put("cache_bytes", r.cacheBytes());
      root.put("cache_vocabulary", r.vocabularySize());
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(root);
      } else {
        root.fields().forEachRemaining(e -> out.printf("%-28s %s%n", e.getKey(), e.getValue()));
      }
      out.flush();
      return 0;
    }

    private int throughput(
        dev.tenbin.encoder.config.EncoderServiceConfig config, java.util.List<String> docs) {
      dev.tenbin.bench.encoder.EncoderThroughput.Result r =
          dev.tenbin.bench.encoder.EncoderThroughput.run(
              config, model, docs, batchTokens, passes, peakGflops);
      ObjectMapper mapper = new ObjectMapper();
      try {
        if (textsOut != null) {
          String prompt = r.documentPrompt();
          StringBuilder lines = new StringBuilder();
          for (String doc : docs) {
            lines.append(mapper.writeValueAsString(prompt + doc)).append('\n');
          }
          java.nio.file.Files.writeString(textsOut, lines);
        }
        if (vectorsOut != null) {
          int dimension = r.vectors().getFirst().length;
          java.nio.ByteBuffer bytes =
              java.nio.ByteBuffer.allocate(r.vectors().size() * dimension * Float.BYTES)
                  .order(java.nio.ByteOrder.LITTLE_ENDIAN);
          for (float[] v : r.vectors()) {
            for (float x : v) {
              bytes.putFloat(x);
            }
          }
          java.nio.file.Files.write(vectorsOut, bytes.array());
        }
      } catch (java.io.IOException e) {
        spec.commandLine().getErr().println("tenbin: cannot write " + e.getMessage());
        return 1;
      }
      ObjectNode root = mapper.createObjectNode();
      root.put("model", r.model());
      root.put("execution_provider", execution.provider());
      root.put("device", execution.device());
      root.put("documents", r.documents());
      root.put("tokens", r.tokens());
      root.put("intra_op_threads", r.threads());
      root.put("weight_multiply_adds_per_token", r.cost().weightMultiplyAddsPerToken());
      root.put("attention_products", r.cost().activationProducts());
      root.put("hidden", r.cost().hidden());
      root.put("gflop_per_pass", r.flop() / 1e9);
      ArrayNode shapes = root.putArray("shapes");
      for (var shape : r.shapes()) {
        ObjectNode row = shapes.addObject();
        row.put("batch_tokens", shape.batchTokens());
        row.put("docs_per_s", shape.docsPerSecond());
        row.put("tokens_per_s", shape.tokensPerSecond());
        row.put("padded_share", shape.paddedShare());
        row.put("gflops", shape.gflops());
        row.put("tokenize_share", shape.tokenizeShare());
        row.put("inference_share", shape.inferenceShare());
      }
      root.put("best_batch_tokens", r.best().batchTokens());
      root.put("best_docs_per_s", r.best().docsPerSecond());
      root.put("best_gflops", r.best().gflops());
      root.put("fma_peak_gflops", r.peakGflops());
      root.put("fma_peak_measured_in_run", r.peakMeasured());
      root.put("fraction_of_peak", r.fractionOfPeak());
      root.put("fma512_peak_gflops", r.peak512Gflops());
      root.put("fraction_of_fma512_peak", r.fractionOf512BitPeak());
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(root);
      } else {
        root.fields().forEachRemaining(e -> out.printf("%-32s %s%n", e.getKey(), e.getValue()));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tenbin bench rerank --model MODEL --dataset DIR}. */
  @Command(
      name = "rerank",
      mixinStandardHelpOptions = true,
      description =
          "Reranking pairs/s, in-process vs over gRPC (loopback), for a cross-encoder or dense:MODEL;"
              + " candidates travel inline, or as ids of an index collection (--documents-by-id);"
              + " the output's documents says which.")
  static final class Rerank implements Callable<Integer> {
    @Option(names = "--model", required = true)
    String model;

    @Option(names = "--dataset", required = true, paramLabel = "DIR")
    Path dataset;

    @Option(names = "--models-dir", defaultValue = "models")
    Path modelsDirectory;

    @Option(names = "--queries", defaultValue = "20")
    int queries;

    @Option(names = "--pairs", defaultValue = "100", description = "Candidates per request.")
    int pairs;

    @Option(
        names = "--warm-up-passes",
        paramLabel = "N",
        description =
            "Passes over the queries before the measured ones (default "
                + DEFAULT_WARM_UP_PASSES
                + "; with --server-cpu "
                + DEFAULT_SERVER_CPU_WARM_UP_PASSES
                + "): the gRPC side's Java code reaches its compiled steady state only after some"
                + " thousands of calls, and a service in its own process keeps compiling the code it"
                + " runs once a request well past 2,000 requests.")
    Integer warmUpPasses;

    static final int DEFAULT_WARM_UP_PASSES = 100;

    /**
     * 10,000 requests of the default 20 queries: with 2,000, half of the rerank process's own CPU
     * in the measured requests was its JIT compiler (BENCHMARKS.md, rerank over gRPC).
     */
    static final int DEFAULT_SERVER_CPU_WARM_UP_PASSES = 500;

    /** {@code --warm-up-passes}, or its default for the kind of run. */
    int warmUpPasses() {
      if (warmUpPasses != null) {
        return warmUpPasses;
      }
      return serverCpu ? DEFAULT_SERVER_CPU_WARM_UP_PASSES : DEFAULT_WARM_UP_PASSES;
    }

    @Option(
        names = "--passes",
        defaultValue = "10",
        description =
            "Measured passes over the queries (default ${DEFAULT-VALUE}); each request runs"
                + " in-process, then over gRPC.")
    int passes;

    @Option(names = "--cache-dir", defaultValue = "${env:TENBIN_CACHE_DIR:-.tenbin/cache}")
    Path cacheDirectory;

    @Option(
        names = "--documents-by-id",
        description =
            "Send candidates as ids of an index collection (RerankRequest.index_documents) instead of"
                + " their text: the documents are ingested into a temporary collection of the embedded"
                + " index service, and the rerank core fetches their text for every request (in both"
                + " halves). Needs --pairs at most the corpus size.")
    boolean documentsById;

    @Option(names = "--json")
    boolean json;

    @Option(
        names = "--server-cpu",
        description =
            "Measure CPU per request instead: in-process against the rerank service in its own"
                + " process (tenbin serve rerank; for a bi-encoder reranker, with tenbin serve"
                + " encoder in another process, both counted as the server), CPU read from the OS,"
                + " at each --in-flight level. Warm-up: --warm-up-passes passes over the queries"
                + " per side; candidates inline.")
    boolean serverCpu;

    @CommandLine.Mixin InFlight inFlight = new InFlight();

    @Option(
        names = "--requests",
        defaultValue = "500",
        paramLabel = "N",
        description =
            "With --server-cpu: measured requests per side and level, rounded down to an even"
                + " number (default ${DEFAULT-VALUE}).")
    int requests;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      List<Integer> levels = null;
      if (serverCpu) {
        levels = inFlight.levels(spec, Runtime.getRuntime().availableProcessors());
        if (requests < 2) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--requests must be at least 2, got " + requests);
        }
        if (documentsById) {
          throw new CommandLine.ParameterException(
              spec.commandLine(),
              "--server-cpu sends the candidates inline; --documents-by-id is not measured with it");
        }
      }
      BeirDataset data = BeirDatasetReader.read(dataset);
      java.util.List<dev.tenbin.scoring.beir.CorpusDocument> corpus = data.corpus().head(pairs);
      if (documentsById && corpus.size() < pairs) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "--documents-by-id needs --pairs at most the corpus size ("
                + corpus.size()
                + " documents), got "
                + pairs);
      }
      java.util.List<String> docs = corpus.stream().map(d -> d.titleAndText()).toList();
      java.util.List<String> qs =
          data.evaluatedQueryIds().stream()
              .limit(queries)
              .map(id -> data.queries().get(id))
              .toList();
      if (passes < 1) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--passes must be at least 1, got " + passes);
      }
      if (warmUpPasses() < 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--warm-up-passes must be at least 0, got " + warmUpPasses());
      }
      if (serverCpu) {
        return serverCpu(qs, docs, levels);
      }
      dev.tenbin.bench.rerank.RerankBenchmark.Result r;
      try (var services =
              dev.tenbin.eval.services.Services.connect(
                  null, null, modelsDirectory, cacheDirectory);
          var collection =
              documentsById
                  ? new dev.tenbin.eval.retrieval.IndexSession(
                      services.index(),
                      dev.tenbin.eval.retrieval.IndexSession.Shape.bm25("en", null))
                  : null) {
        dev.tenbin.bench.rerank.RerankBenchmark.ById byId = null;
        if (collection != null) {
          collection.ingest(
              corpus.stream()
                  .map(
                      d ->
                          dev.tenbin.proto.index.v1.Document.newBuilder()
                              .setId(d.id())
                              .setTitle(d.title())
                              .setText(d.text())
                              .build())
                  .toList());
          byId =
              new dev.tenbin.bench.rerank.RerankBenchmark.ById(
                  collection.name(), corpus.stream().map(d -> d.id()).toList(), services::index);
        }
        r =
            dev.tenbin.bench.rerank.RerankBenchmark.run(
                modelsDirectory,
                cacheDirectory,
                services::encoder,
                model,
                qs,
                docs,
                pairs,
                warmUpPasses(),
                passes,
                byId);
      }
      ObjectNode root = new ObjectMapper().createObjectNode();
      root.put("model", r.model());
      root.put("requests", r.requests());
      root.put("pairs_per_request", r.pairsPerRequest());
      root.put("warm_up_passes", r.warmUpPasses());
      root.put("passes", r.passes());
      root.put("documents", r.documents());
      root.put("in_process_pairs_per_s", r.inProcessPairsPerSecond());
      root.put("grpc_pairs_per_s", r.grpcPairsPerSecond());
      root.put("grpc_over_in_process", r.ratio());
      root.put("in_process_scoring_us_per_request", r.inProcessScoringMicrosPerRequest());
      root.put("grpc_server_scoring_us_per_request", r.grpcServerScoringMicrosPerRequest());
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(root);
      } else {
        root.fields().forEachRemaining(e -> out.printf("%-24s %s%n", e.getKey(), e.getValue()));
      }
      out.flush();
      return 0;
    }

    private int serverCpu(List<String> qs, List<String> docs, List<Integer> levels) {
      Path folder = dev.tenbin.bench.setup.ScratchFolders.create("tenbin-bench-rerank-cpu-");
      RerankServerCpuBenchmark.Result r;
      try (var services =
          dev.tenbin.eval.services.Services.connect(null, null, modelsDirectory, cacheDirectory)) {
        r =
            new RerankServerCpuBenchmark(
                    model, qs, docs, pairs, requests, warmUpPasses() * qs.size(), levels)
                .run(modelsDirectory, cacheDirectory, services::encoder, folder);
      } finally {
        dev.tenbin.bench.setup.ScratchFolders.delete(folder);
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(RerankServerCpuReport.json(r));
      } else {
        RerankServerCpuReport.print(r, out);
      }
      out.flush();
      return 0;
    }
  }

  /** {@code --in-flight N,N,…}: the levels of a server-CPU bench. */
  static final class InFlight {
    @Option(
        names = "--in-flight",
        split = ",",
        paramLabel = "N",
        description =
            "With --server-cpu: calls in flight on each side (default: 1, the cores, 4 × the"
                + " cores).")
    List<Integer> given;

    /** The levels to measure ({@link LoadLevels#levels}), a bad one refused naming the flag. */
    List<Integer> levels(CommandLine.Model.CommandSpec spec, int cores) {
      try {
        return LoadLevels.levels(given, cores);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
  }

  static final String PEAK_HELP =
      "This machine's FMA peak in GFLOP/s, the one the float scan is a fraction of: the JMH figure"
          + " of ./tenbin jmh 'DenseScanBenchmarks.fmaPeak' (GFLOP/s = threads x 3072 x 2000 /"
          + " (us/op x 1000)). Without it no fraction is reported.";

  /** Puts {@code value}, or null when it is NaN (a figure not measured). */
  static void putFinite(ObjectNode node, String name, double value) {
    if (Double.isNaN(value)) {
      node.putNull(name);
    } else {
      node.put(name, value);
    }
  }

  /** {@code tenbin bench index}. */
  @Command(
      name = "index",
      mixinStandardHelpOptions = true,
      description =
          "Exact-scan speeds on seeded synthetic data: float GFLOP/s as a fraction of the FMA peak given"
              + " by --peak-gflops, int8 and binary speed-ups, sparse queries/s per pruning setting,"
              + " MaxSim documents/s.")
  static final class Index implements Callable<Integer> {
    @Option(names = "--documents", defaultValue = "10000")
    int documents;

    @Option(names = "--dimension", defaultValue = "384")
    int dimension;

    @Option(names = "--queries", defaultValue = "50")
    int queries;

    @Option(names = "--peak-gflops", paramLabel = "GFLOPS", description = PEAK_HELP)
    Double peakGflops;

    @Option(names = "--json")
    boolean json;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      var r =
          new dev.tenbin.bench.index.IndexScanBenchmark()
              .run(documents, dimension, queries, peakGflops == null ? Double.NaN : peakGflops);
      ObjectNode root = new ObjectMapper().createObjectNode();
      root.put("documents", r.documents());
      root.put("dimension", r.dimension());
      root.put("float_scan_gflops", r.floatScanGflops());
      putFinite(root, "peak_fma_gflops", r.peakGflops());
      putFinite(root, "float_fraction_of_peak", r.fractionOfPeak());
      root.put("float_ms_per_query", r.floatMillisPerQuery());
      root.put("int8_ms_per_query", r.int8MillisPerQuery());
      root.put("binary_ms_per_query", r.binaryMillisPerQuery());
      root.put("int8_speedup", r.int8Speedup());
      root.put("binary_speedup", r.binarySpeedup());
      ObjectNode sparse = root.putObject("sparse_queries_per_s");
      r.sparseQueriesPerSecond().forEach(sparse::put);
      root.put("maxsim_documents_per_s", r.maxSimDocumentsPerSecond());
      PrintWriter out = spec.commandLine().getOut();
      out.println(json ? root.toString() : root.toPrettyString());
      out.flush();
      return 0;
    }
  }

  /** {@code tenbin bench index-scaling}. */
  @Command(
      name = "index-scaling",
      mixinStandardHelpOptions = true,
      description = {
        "How the dense index's costs grow from 10K to 1M vectors: seeded synthetic vectors (a"
            + " normalised Gaussian mixture) ingested through the index's vector store and searched"
            + " over its memory mapping. Per size: ingest vectors/s, file bytes, RSS (file-backed and"
            + " anonymous) and heap used, exact float / int8 / binary scan latency, float GFLOP/s"
            + " against --peak-gflops, and Lucene HNSW (float, int8, binary) build time, latency and"
            + " recall@10 against exact float per beam width, with the speed-up at recall@10 >= 0.95.",
        "Everything in one run, so ratios are side by side."
      })
  static final class IndexScaling implements Callable<Integer> {
    @Option(
        names = "--sizes",
        split = ",",
        defaultValue = "10000,100000,1000000",
        description = "Collection sizes, comma-separated (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--dimension", defaultValue = "384")
    int dimension;

    @Option(names = "--seed", defaultValue = "42")
    long seed;

    @Option(names = "--queries", defaultValue = "50", description = "Queries timed per method.")
    int queries;

    @Option(names = "--clusters", defaultValue = "1000", description = "Gaussian mixture clusters.")
    int clusters;

    @Option(
        names = "--hnsw-max-size",
        defaultValue = "100000",
        description = "Largest size whose HNSW graphs are built (default: ${DEFAULT-VALUE}).")
    int hnswMaxSize;

    @Option(
        names = "--hnsw-graphs",
        split = ",",
        paramLabel = "VECTORS",
        defaultValue = "float,int8,binary",
        description =
            "Which HNSW graphs are built up to --hnsw-max-size: float, int8, binary (default:"
                + " ${DEFAULT-VALUE}).")
    List<String> hnswGraphs;

    @Option(
        names = "--beams",
        split = ",",
        defaultValue = "10,20,40,80,160",
        description =
            "HNSW beam widths (candidates asked of the graph; default: ${DEFAULT-VALUE}).")
    List<Integer> beams;

    @Option(
        names = "--rescore-depths",
        split = ",",
        paramLabel = "N",
        description =
            "Shortlist depths of the int8 and binary scans re-scored in float, each timed with its"
                + " recall@10 and the speed-up over the exact float scan at the smallest depth"
                + " reaching recall@10 >= 0.95 (default: none beyond the fixed 100).")
    List<Integer> rescoreDepths = new java.util.ArrayList<>();

    @Option(
        names = "--hnsw-shards",
        split = ",",
        paramLabel = "K",
        description =
            "Shard counts (1..64) whose float graphs are measured too, up to --hnsw-max-size: the"
                + " vectors split as a sharded collection places them, one graph per shard, per"
                + " beam the recall@10 of the shards' merged top 10 against the whole collection's"
                + " exact float top 10 and queries/s (default: none).")
    List<Integer> hnswShards = new java.util.ArrayList<>();

    @Option(
        names = "--batch-queries",
        defaultValue = "64",
        description = "Queries of the batched float scan.")
    int batchQueries;

    @Option(
        names = "--min-seconds",
        defaultValue = "2",
        description = "Each latency is timed over whole passes of the queries until this long.")
    double minSeconds;

    @Option(names = "--peak-gflops", paramLabel = "GFLOPS", description = PEAK_HELP)
    Double peakGflops;

    @Option(
        names = "--work-dir",
        paramLabel = "DIR",
        description =
            "Where the vector files are written, one size at a time (default: a temp dir).")
    Path workDir;

    @Option(names = "--plot", paramLabel = "FILE", description = "Also write a log-log SVG plot.")
    Path plot;

    @Option(names = "--json")
    boolean json;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws java.io.IOException {
      Path work =
          workDir != null ? workDir : java.nio.file.Files.createTempDirectory("tenbin-scaling");
      dev.tenbin.bench.index.IndexScalingBenchmark.Config config;
      try {
        config =
            new dev.tenbin.bench.index.IndexScalingBenchmark.Config(
                sizes,
                dimension,
                seed,
                queries,
                clusters,
                hnswMaxSize,
                dev.tenbin.bench.index.IndexScalingBenchmark.graphsNamed(hnswGraphs),
                beams,
                rescoreDepths,
                batchQueries,
                minSeconds,
                peakGflops == null ? Double.NaN : peakGflops,
                work,
                hnswShards);
      } catch (IllegalArgumentException e) {
        if (workDir == null) {
          java.nio.file.Files.deleteIfExists(work);
        }
        spec.commandLine().getErr().println("tenbin: " + e.getMessage());
        return 2;
      }
      PrintWriter err = spec.commandLine().getErr();
      var results =
          new dev.tenbin.bench.index.IndexScalingBenchmark()
              .run(
                  config,
                  r -> {
                    err.printf(
                        Locale.ROOT,
                        "tenbin: %,d vectors measured (float %.3f ms, int8 %.3f ms, binary %.3f ms)%n",
                        r.size(),
                        r.floatMillisPerQuery(),
                        r.int8MillisPerQuery(),
                        r.binaryMillisPerQuery());
                    err.flush();
                  });
      if (workDir == null) {
        java.nio.file.Files.deleteIfExists(work);
      }
      if (plot != null) {
        if (plot.toAbsolutePath().getParent() != null) {
          java.nio.file.Files.createDirectories(plot.toAbsolutePath().getParent());
        }
        java.nio.file.Files.writeString(
            plot,
            dev.tenbin.bench.index.ScalingPlot.svg(
                results,
                "Dense search latency vs collection size (" + dimension + " dimensions, top 10)"));
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(IndexScalingReport.json(config, results));
      } else {
        out.print(IndexScalingReport.table(config, results));
      }
      out.flush();
      return 0;
    }
  }

  /** {@code tenbin bench metrics --out DIR}. */
  @Command(
      name = "metrics",
      mixinStandardHelpOptions = true,
      description = {
        "Write a seeded synthetic TREC run and qrels (run.trec, qrels.trec) for timing and checking"
            + " tenbin metrics against trec_eval at scale: graded judgments, tied scores, judged"
            + " queries missing from the run, unjudged run queries and documents.",
        "The same --queries, --depth and --seed always write the same bytes."
      })
  static final class Metrics implements Callable<Integer> {
    @Option(names = "--queries", defaultValue = "1031", description = "Judged queries.")
    int queries;

    @Option(
        names = "--depth",
        defaultValue = "1000",
        description = "Documents per run query (1031 queries x 1000 make about 1M run lines).")
    int depth;

    @Option(names = "--seed", defaultValue = "7")
    long seed;

    @Option(names = "--out", required = true, paramLabel = "DIR")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      if (queries < 1 || depth < 1) {
        spec.commandLine().getErr().println("tenbin: --queries and --depth must be positive");
        return 2;
      }
      dev.tenbin.bench.bm25.SyntheticRunFiles.Summary summary;
      try {
        summary = dev.tenbin.bench.bm25.SyntheticRunFiles.write(out, queries, depth, seed);
      } catch (java.io.IOException e) {
        spec.commandLine()
            .getErr()
            .println("tenbin: cannot write to " + out + ": " + e.getMessage());
        return 2;
      }
      PrintWriter printer = spec.commandLine().getOut();
      printer.printf(
          Locale.ROOT,
          "%s: %d lines, %d queries (%d judged queries absent, plus unjudged ones)%n"
              + "%s: %d lines, %d judged queries%n",
          out.resolve(dev.tenbin.bench.bm25.SyntheticRunFiles.RUN_FILE),
          summary.runLines(),
          summary.runQueries(),
          queries / 20,
          out.resolve(dev.tenbin.bench.bm25.SyntheticRunFiles.QRELS_FILE),
          summary.qrelsLines(),
          summary.judgedQueries());
      printer.flush();
      return 0;
    }
  }
}
