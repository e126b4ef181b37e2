package dev.tenbin.bench.rerank;

import dev.tenbin.client.encoder.EncoderClient;
import dev.tenbin.client.index.IndexClient;
import dev.tenbin.core.Cancellation;
import dev.tenbin.proto.rerank.v1.Candidate;
import dev.tenbin.proto.rerank.v1.RerankRequest;
import dev.tenbin.proto.rerank.v1.RerankServiceGrpc;
import dev.tenbin.rerank.CandidateTexts;
import dev.tenbin.rerank.RerankCore;
import dev.tenbin.rerank.cross.ScorePrecision;
import dev.tenbin.rerank.documents.IndexDocuments;
import dev.tenbin.rerank.grpc.RerankGrpcService;
import dev.tenbin.rerank.server.RerankServer;
import dev.tenbin.rpc.GrpcServerHost;
import dev.tenbin.rpc.ServerSettings;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Reranking throughput in (query, document) pairs per second: the plain-Java core against the
 * rerank service over loopback gRPC, the same requests in one run, alternating (after a warm-up of
 * each as long as the measurement). {@code tenbin bench rerank} runs it through {@link #run(Path,
 * Path, Supplier, String, List, List, int, int, ById)}.
 *
 * <p>Documents travel inline (each request carries every candidate's text) or, with {@link ById},
 * as ids of an index collection whose text the rerank core fetches (both halves then include the
 * fetch).
 */
public final class RerankBenchmark {
  /**
   * Candidates given by id: {@code ids} of {@code collection} on the index service {@code index}
   * calls, holding the benchmark's documents in the same order.
   */
  public record ById(String collection, List<String> ids, Supplier<IndexClient> index) {}

  /**
   * The two figures and their ratio; {@code documents} says how candidates travelled: {@code
   * inline} or {@code by_id}. The scoring times are the core's own ({@code inference_nanos}: the
   * model's scores, without validation, fetching by id or ranking), per measured request, in the
   * bench's thread and as the server reported it.
   */
  public record Result(
      String model,
      int requests,
      int pairsPerRequest,
      double inProcessPairsPerSecond,
      double grpcPairsPerSecond,
      String documents,
      double inProcessScoringMicrosPerRequest,
      double grpcServerScoringMicrosPerRequest,
      int warmUpPasses,
      int passes) {
    public double ratio() {
      return grpcPairsPerSecond / inProcessPairsPerSecond;
    }
  }

  private final RerankCore core;
  private final ById byId;

  public RerankBenchmark(RerankCore core) {
    this(core, null);
  }

  /** Candidates by id when {@code byId} is given (its ids, one per pair), inline otherwise. */
  public RerankBenchmark(RerankCore core, ById byId) {
    this.core = core;
    this.byId = byId;
  }

  /**
   * Measures {@code model} on a core over {@code models} (bi-encoders calling the encoder {@code
   * encoder} gives), closing the core afterwards; with {@code byId}, candidates are sent as ids of
   * its collection, inline otherwise.
   */
  public static Result run(
      Path models,
      Path cache,
      Supplier<EncoderClient> encoder,
      String model,
      List<String> queries,
      List<String> documents,
      int pairsPerRequest,
      int warmUpPasses,
      int passes,
      ById byId) {
    try (RerankCore core =
        RerankServer.core(
            models,
            cache,
            encoder,
            byId == null ? CandidateTexts.none() : IndexDocuments.fromClient(byId.index()),
            10_000,
            8192)) {
      return new RerankBenchmark(core, byId)
          .run(model, queries, documents, pairsPerRequest, warmUpPasses, passes);
    }
  }

  /**
   * Times the same requests both ways: {@code warmUpPasses} passes over the queries, then {@code
   * passes} measured ones, each request in-process then over gRPC, so that both paths get as much
   * warm-up and share the machine's noise. The warm-up is what brings the gRPC side to its steady
   * state: its transport and protobuf code is Java the JIT compiles only after some thousands of
   * calls, while the in-process side's hot code is the model's native code.
   */
  public Result run(
      String model,
      List<String> queries,
      List<String> documents,
      int pairsPerRequest,
      int warmUpPasses,
      int passes) {
    if (warmUpPasses < 0) {
      throw new IllegalArgumentException(
          "--warm-up-passes must be at least 0, got " + warmUpPasses);
    }
    if (passes < 1) {
      throw new IllegalArgumentException("--passes must be at least 1, got " + passes);
    }
    List<RerankCore.Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < pairsPerRequest; i++) {
      candidates.add(
          byId == null
              ? inlineCandidate(documents, i)
              : new RerankCore.Candidate(byId.ids().get(i), documents.get(i)));
    }
    Supplier<List<RerankCore.Candidate>> perRequest =
        byId == null
            ? () -> candidates
            : () -> core.candidatesById(byId.collection(), byId.ids().subList(0, pairsPerRequest));
    GrpcServerHost host =
        GrpcServerHost.start(
            new ServerSettings("127.0.0.1", 0, -1, 64 * 1024 * 1024, Duration.ofSeconds(1)),
            List.of(new RerankGrpcService(core)));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", host.port()).usePlaintext().build();
    try {
      var stub = RerankServiceGrpc.newBlockingStub(channel);
      RerankRequest.Builder template = RerankRequest.newBuilder().setModelId(model);
      if (byId == null) {
        template = inlineTemplate(model, candidates);
      } else {
        template.setIndexDocuments(
            dev.tenbin.proto.rerank.v1.IndexDocuments.newBuilder()
                .setCollection(byId.collection())
                .addAllIds(byId.ids().subList(0, pairsPerRequest)));
      }
      List<RerankRequest> requests = new ArrayList<>();
      for (String query : queries) {
        requests.add(template.setQuery(query).build());
      }
      long inProcessNanos = 0;
      long grpcNanos = 0;
      long inProcessScoringNanos = 0;
      long grpcScoringNanos = 0;
      for (int pass = 0; pass < warmUpPasses + passes; pass++) {
        for (int q = 0; q < queries.size(); q++) {
          long start = System.nanoTime();
          RerankCore.Reranked local =
              core.rerank(
                  model,
                  queries.get(q),
                  perRequest.get(),
                  ScorePrecision.FP32,
                  0,
                  Cancellation.NEVER);
          long middle = System.nanoTime();
          var remote = stub.withDeadlineAfter(10, TimeUnit.MINUTES).rerank(requests.get(q));
          long end = System.nanoTime();
          if (pass >= warmUpPasses) {
            inProcessNanos += middle - start;
            grpcNanos += end - middle;
            inProcessScoringNanos += local.inferenceNanos();
            grpcScoringNanos += remote.getMetadata().getInferenceNanos();
          }
        }
      }
      double pairs = (double) queries.size() * passes * pairsPerRequest;
      return new Result(
          model,
          queries.size(),
          pairsPerRequest,
          pairs / (inProcessNanos / 1e9),
          pairs / (grpcNanos / 1e9),
          byId == null ? "inline" : "by_id",
          inProcessScoringNanos / 1e3 / ((long) queries.size() * passes),
          grpcScoringNanos / 1e3 / ((long) queries.size() * passes),
          warmUpPasses,
          passes);
    } finally {
      channel.shutdownNow();
      host.close();
    }
  }

  /** Inline candidate {@code i}: id {@code d<i>}, the documents' texts taken in turn. */
  static RerankCore.Candidate inlineCandidate(List<String> documents, int i) {
    return new RerankCore.Candidate("d" + i, documents.get(i % documents.size()));
  }

  /** A request for {@code model} carrying {@code candidates} with their text; the query to set. */
  static RerankRequest.Builder inlineTemplate(String model, List<RerankCore.Candidate> candidates) {
    RerankRequest.Builder template = RerankRequest.newBuilder().setModelId(model);
    for (RerankCore.Candidate candidate : candidates) {
      template.addCandidates(
          Candidate.newBuilder().setDocId(candidate.docId()).setText(candidate.text()));
    }
    return template;
  }
}
