package dev.tenbin.bench.rerank;

import dev.tenbin.bench.compare.CpuClock;
import dev.tenbin.bench.compare.LoadLevels;
import dev.tenbin.bench.compare.SameHits;
import dev.tenbin.bench.setup.ServiceProcess;
import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.rerank.CandidateTexts;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.bi.BiEncoderReranker;
import dev.tenbin.rerank.cross.ScorePrecision;
import dev.tenbin.rerank.server.RerankServer;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * CPU time per rerank request: in-process (the plain-Java core, in this JVM) against the rerank
 * service in a process of its own ({@link ServiceProcess}, {@code tenbin serve rerank}) called over
 * loopback gRPC, at several numbers of requests in flight. A bi-encoder reranker ({@code
 * dense:MODEL} and the like) reaches its encoder over gRPC: the service's encoder then runs in a
 * process of its own as well ({@code tenbin serve encoder}), and the server's CPU is both
 * processes', each reported; the in-process core reaches the encoder embedded in this JVM. CPU
 * comes from the operating system: this process's for the in-process side and the load generator,
 * the service processes' for the server.
 *
 * <p>Both sides rerank the same requests (one per query, the same candidates inline, cycled over
 * the queries); every query's order and scores are compared first (same ids, bit-identical scores).
 * Each side is warmed up ({@code warmUpRequests} at the highest level); each level then runs {@code
 * requests} requests per side in two rounds, the sides alternating within each.
 */
public final class RerankServerCpuBenchmark {
  /** Every reranker allowed and none unloaded in the service processes, as in-process. */
  private static final List<String> MODEL_POLICY =
      List.of("--allow-models", "builtin:*,local:*,hub:*", "--model-idle-seconds", "0");

  private static final int MAX_BATCH_TOKENS = 8192;

  /** A service process whose CPU counts as the server's. */
  public enum Service {
    /** {@code tenbin serve rerank}. */
    RERANK,
    /** {@code tenbin serve encoder}, for bi-encoder rerankers. */
    ENCODER;

    /** The name {@code tenbin serve} knows it by. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One service process's CPU per request. */
  public record ProcessCpu(Service service, double cpuMicros) {}

  /**
   * One level's figures.
   *
   * @param inFlight requests in flight (threads on each side)
   * @param inProcessCpuMicros this process's CPU per in-process request
   * @param inProcessRequestsPerSecond in-process requests per wall second
   * @param serverProcesses each service process's CPU per gRPC request
   * @param clientCpuMicros this process's CPU per gRPC request (the load generator)
   * @param grpcRequestsPerSecond gRPC requests per wall second
   */
  public record Level(
      int inFlight,
      double inProcessCpuMicros,
      double inProcessRequestsPerSecond,
      List<ProcessCpu> serverProcesses,
      double clientCpuMicros,
      double grpcRequestsPerSecond) {
    public Level {
      serverProcesses = List.copyOf(serverProcesses);
    }

    /**
     * The figures of a level from the usage of the in-process side (this process's clock) and of
     * the gRPC side (the clocks of {@code services}, in that order, then this process's).
     */
    public static Level of(
        int inFlight, List<Service> services, LoadLevels.Usage inProcess, LoadLevels.Usage grpc) {
      if (grpc.cpuNanos().size() != services.size() + 1) {
        throw new IllegalArgumentException(
            "the gRPC side has "
                + grpc.cpuNanos().size()
                + " clocks; expected one per service and this process's");
      }
      List<ProcessCpu> server = new ArrayList<>();
      for (int s = 0; s < services.size(); s++) {
        server.add(new ProcessCpu(services.get(s), grpc.cpuMicrosPerCall(s)));
      }
      return new Level(
          inFlight,
          inProcess.cpuMicrosPerCall(0),
          inProcess.callsPerSecond(),
          server,
          grpc.cpuMicrosPerCall(services.size()),
          grpc.callsPerSecond());
    }

    /** The service processes' CPU per request, all together. */
    public double serverCpuMicros() {
      return serverProcesses.stream().mapToDouble(ProcessCpu::cpuMicros).sum();
    }

    /** Server CPU per request over in-process CPU per request. */
    public double serverOverInProcessCpu() {
      return serverCpuMicros() / inProcessCpuMicros;
    }

    /** The part of the server's CPU that {@code process} used. */
    public double share(ProcessCpu process) {
      return process.cpuMicros() / serverCpuMicros();
    }

    public double grpcOverInProcessThroughput() {
      return grpcRequestsPerSecond / inProcessRequestsPerSecond;
    }
  }

  /**
   * A run's figures: {@code queries} distinct requests of {@code pairsPerRequest} candidates,
   * {@code requests} measured per side and level after {@code warmUpRequests}, on a machine of
   * {@code cores} cores, with the server's CPU counted over {@code services}.
   */
  public record Result(
      String model,
      int queries,
      int pairsPerRequest,
      int requests,
      int warmUpRequests,
      int cores,
      List<Service> services,
      List<Level> levels) {
    public Result {
      services = List.copyOf(services);
      levels = List.copyOf(levels);
    }
  }

  private final String model;
  private final List<String> queries;
  private final List<String> documents;
  private final int pairsPerRequest;
  private final int requests;
  private final int warmUpRequests;
  private final List<Integer> inFlight;

  /**
   * @param requests measured requests per side and level (at least 2)
   * @param warmUpRequests requests each side runs first, at the highest level
   * @param inFlight the levels, each at least 1
   */
  public RerankServerCpuBenchmark(
      String model,
      List<String> queries,
      List<String> documents,
      int pairsPerRequest,
      int requests,
      int warmUpRequests,
      List<Integer> inFlight) {
    if (requests < 2) {
      throw new IllegalArgumentException("--requests must be at least 2, got " + requests);
    }
    if (warmUpRequests < 0) {
      throw new IllegalArgumentException(
          "the warm-up must be at least 0 requests, got " + warmUpRequests);
    }
    if (queries.isEmpty() || documents.isEmpty() || pairsPerRequest < 1) {
      throw new IllegalArgumentException(
          "a rerank request needs a query and at least one candidate");
    }
    this.model = model;
    this.queries = List.copyOf(queries);
    this.documents = List.copyOf(documents);
    this.pairsPerRequest = pairsPerRequest;
    this.requests = requests;
    this.warmUpRequests = warmUpRequests;
    this.inFlight = LoadLevels.levels(inFlight, Runtime.getRuntime().availableProcessors());
  }

  /** The service processes a reranker needs: an encoder too for a bi-encoder reranker. */
  public static List<Service> servicesFor(String model) {
    return BiEncoderReranker.handles(model)
        ? List.of(Service.RERANK, Service.ENCODER)
        : List.of(Service.RERANK);
  }

  /**
   * Measures on an in-process core over {@code models} (bi-encoders calling the encoder {@code
   * encoder} gives) against service processes over the same models and cache, with their logs under
   * {@code folder}; the core and the processes are closed afterwards, whatever happens.
   */
  public Result run(Path models, Path cache, Supplier<EncoderClient> encoder, Path folder) {
    try (RerankCore core =
        RerankServer.core(
            models, cache, encoder, CandidateTexts.none(), 10_000, MAX_BATCH_TOKENS)) {
      return run(core, models, cache, folder);
    }
  }

  private Result run(RerankCore core, Path models, Path cache, Path folder) {
    List<String> sources =
        List.of(
            "--models-dir",
            models.toAbsolutePath().toString(),
            "--cache-dir",
            cache.toAbsolutePath().toString());
    List<Service> services = servicesFor(model);
    List<String> rerankFlags = new ArrayList<>(sources);
    rerankFlags.addAll(MODEL_POLICY);
    rerankFlags.addAll(
        List.of(
            "--max-pairs-per-request",
            Integer.toString(Math.max(1000, pairsPerRequest)),
            "--max-batch-tokens",
            Integer.toString(MAX_BATCH_TOKENS)));
    List<String> encoderFlags = new ArrayList<>(sources);
    encoderFlags.addAll(MODEL_POLICY);
    try (ServiceProcess encoder =
            services.contains(Service.ENCODER)
                ? ServiceProcess.start("encoder", folder.resolve("encoder"), encoderFlags)
                : null;
        ServiceProcess rerank =
            ServiceProcess.start(
                "rerank",
                folder.resolve("rerank"),
                encoder == null
                    ? rerankFlags
                    : concat(rerankFlags, "--encoder-endpoint", "127.0.0.1:" + encoder.port()))) {
      List<CpuClock> serverClocks = new ArrayList<>();
      serverClocks.add(rerank::cpuNanos);
      if (encoder != null) {
        serverClocks.add(encoder::cpuNanos);
      }
      ManagedChannel channel = rerank.channel();
      try {
        return measure(core, RerankServiceGrpc.newBlockingStub(channel), services, serverClocks);
      } finally {
        channel.shutdownNow();
      }
    }
  }

  private Result measure(
      RerankCore core,
      RerankServiceGrpc.RerankServiceBlockingStub stub,
      List<Service> services,
      List<CpuClock> serverClocks) {
    List<RerankCore.Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < pairsPerRequest; i++) {
      candidates.add(RerankBenchmark.inlineCandidate(documents, i));
    }
    RerankRequest.Builder template = RerankBenchmark.inlineTemplate(model, candidates);
    List<RerankRequest> rerankRequests = new ArrayList<>();
    for (String query : queries) {
      rerankRequests.add(template.setQuery(query).build());
    }
    IntConsumer inProcess = i -> inProcess(core, queries.get(i % queries.size()), candidates);
    IntConsumer overGrpc =
        i ->
            stub.withDeadlineAfter(10, TimeUnit.MINUTES)
                .rerank(rerankRequests.get(i % rerankRequests.size()));
    for (int q = 0; q < queries.size(); q++) {
      List<ScoredDocument> expected =
          inProcess(core, queries.get(q), candidates).documents().stream()
              .map(hit -> SameHits.hit(hit.docId(), hit.score()))
              .toList();
      SameHits.require(
          q,
          "gRPC (service process)",
          expected,
          stub.withDeadlineAfter(10, TimeUnit.MINUTES)
              .rerank(rerankRequests.get(q))
              .getDocumentsList());
    }
    List<CpuClock> grpcClocks = new ArrayList<>(serverClocks);
    grpcClocks.add(CpuClock.thisProcess());
    List<LoadLevels.Side> sides =
        List.of(
            new LoadLevels.Side(inProcess, List.of(CpuClock.thisProcess())),
            new LoadLevels.Side(overGrpc, grpcClocks));
    int most = inFlight.stream().mapToInt(Integer::intValue).max().orElse(1);
    LoadLevels.warmUp(most, warmUpRequests, sides);
    List<Level> levels = new ArrayList<>();
    for (int threads : inFlight) {
      List<LoadLevels.Usage> used = LoadLevels.measure(threads, requests, sides);
      levels.add(Level.of(threads, services, used.get(0), used.get(1)));
    }
    return new Result(
        model,
        queries.size(),
        pairsPerRequest,
        2 * Math.max(1, requests / 2),
        warmUpRequests,
        Runtime.getRuntime().availableProcessors(),
        services,
        levels);
  }

  private RerankCore.Reranked inProcess(
      RerankCore core, String query, List<RerankCore.Candidate> candidates) {
    return core.rerank(model, query, candidates, ScorePrecision.FP32, 0, Cancellation.NEVER);
  }

  private static List<String> concat(List<String> flags, String... more) {
    List<String> all = new ArrayList<>(flags);
    all.addAll(List.of(more));
    return all;
  }
}
