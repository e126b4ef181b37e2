package dev.tenbin.bench.bm25;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.bench.index.Bm25CoreBenchmark.ScoredId;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.beir.CorpusDocument;
import dev.tenbin.scoring.beir.SpanQrels;
import dev.tenbin.scoring.metrics.Qrels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code tenbin bench bm25}: every path on one collection, checked to agree before timing. */
class Bm25BenchmarkTest {
  private static final String[] WORDS = {
    "retrieval",
    "index",
    "query",
    "document",
    "score",
    "rank",
    "token",
    "passage",
    "answer",
    "batch"
  };

  @Test
  void bothPathsSearchTheSameCollectionAndTheServersSearchIsPartOfTheGrpcTime() {
    List<CorpusDocument> corpus = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      corpus.add(
          new CorpusDocument(
              "d" + i,
              WORDS[i % WORDS.length],
              WORDS[(i * 3) % WORDS.length] + " " + WORDS[(i * 7 + 1) % WORDS.length] + " " + i));
    }
    Map<String, String> queries = new LinkedHashMap<>();
    for (int q = 0; q < 5; q++) {
      queries.put("q" + q, WORDS[q] + " " + WORDS[q + 4]);
    }
    BeirDataset data =
        new BeirDataset(
            "tiny",
            Path.of("tiny"),
            dev.tenbin.scoring.beir.Corpus.of(corpus),
            queries,
            Qrels.of(Map.of()),
            SpanQrels.none(),
            List.copyOf(queries.keySet()),
            List.of());

    // run() fails when a gRPC path (unary or stream) returns other hits than in-process for any
    // query.
    Bm25Benchmark.Result result = new Bm25Benchmark(data, "en", 2, 3, 10, 2).run();

    assertThat(result.documents()).isEqualTo(60);
    assertThat(result.queries()).isEqualTo(5);
    assertThat(result.passes()).isEqualTo(2);
    assertThat(result.warmUpPasses()).isEqualTo(3);
    assertThat(result.inProcess().queriesPerSecond()).isPositive();
    assertThat(result.grpc().queriesPerSecond()).isPositive();
    assertThat(result.queryRatio())
        .isEqualTo(result.grpc().queriesPerSecond() / result.inProcess().queriesPerSecond());
    assertThat(result.grpcStreamQueriesPerSecond()).isPositive();
    assertThat(result.streamQueryRatio())
        .isEqualTo(result.grpcStreamQueriesPerSecond() / result.inProcess().queriesPerSecond());
    assertThat(result.grpcStreamMicrosPerQuery())
        .isEqualTo(1e6 / result.grpcStreamQueriesPerSecond());
    assertThat(result.grpcStreamPipelinedQueriesPerSecond()).isPositive();
    assertThat(result.pipelinedStreamQueryRatio())
        .isEqualTo(
            result.grpcStreamPipelinedQueriesPerSecond() / result.inProcess().queriesPerSecond());
    // The service searched every pipelined request, for less time than the stream took a query
    // (with 8 in flight the stream's time per query bounds the search's only on average, which is
    // why this compares means).
    assertThat(result.grpcStreamPipelinedServerSearchMicros())
        .isPositive()
        .isLessThan(1e6 / result.grpcStreamPipelinedQueriesPerSecond());
    assertThat(result.threads()).isEqualTo(2);
    assertThat(result.inProcessParallelQueriesPerSecond()).isPositive();
    assertThat(result.grpcParallelQueriesPerSecond()).isPositive();
    assertThat(result.parallelQueryRatio())
        .isEqualTo(
            result.grpcParallelQueriesPerSecond() / result.inProcessParallelQueriesPerSecond());
    assertThat(result.grpcParallelOwnChannelsQueriesPerSecond()).isPositive();
    assertThat(result.parallelOwnChannelsQueryRatio())
        .isEqualTo(
            result.grpcParallelOwnChannelsQueriesPerSecond()
                / result.inProcessParallelQueriesPerSecond());
    // Each server-side search interval lies inside the client's call, so the mean does too.
    assertThat(result.grpcServerSearchMicros())
        .isPositive()
        .isLessThan(result.grpcMicrosPerQuery());
    assertThat(result.grpcNoHitMicros()).isPositive();
    assertThat(result.grpcHealthCheckMicros()).isPositive();
    assertThat(result.queryRatioCeiling())
        .isEqualTo(
            result.inProcessMicrosPerQuery()
                / (result.inProcessMicrosPerQuery() + result.grpcNoHitMicros()))
        .isBetween(0.0, 1.0);
    assertThat(result.grpcBareHealthCheckMicros()).isPositive();
    assertThat(result.bareQueryRatioCeiling())
        .isEqualTo(
            result.inProcessMicrosPerQuery()
                / (result.inProcessMicrosPerQuery() + result.grpcBareHealthCheckMicros()))
        .isBetween(0.0, 1.0);
    // A call whose handler spins as long as an in-process search cannot be shorter than that.
    assertThat(result.grpcBareSearchLengthCallMicros())
        .isGreaterThanOrEqualTo(result.inProcessMicrosPerQuery() * 0.999);
    assertThat(result.bareSearchLengthCeiling())
        .isEqualTo(result.inProcessMicrosPerQuery() / result.grpcBareSearchLengthCallMicros())
        .isBetween(0.0, 1.001);
    assertThat(result.bareWorkCurve())
        .extracting(Bm25Benchmark.BareWorkCall::workMicros)
        .containsExactly(0.0, 100.0, 200.0, 400.0, 800.0);
    assertThat(result.bareWorkCurve())
        .allSatisfy(
            call -> assertThat(call.callMicros()).isGreaterThanOrEqualTo(call.workMicros()));
  }

  @Test
  void theDefaultWarmUpIsWholePassesOfAtLeastTwentyThousandSearches() {
    assertThat(Bm25Benchmark.defaultWarmUpPasses(43)).isEqualTo(466); // 466 x 43 = 20,038
    assertThat(Bm25Benchmark.defaultWarmUpPasses(20_000)).isEqualTo(1);
    assertThat(Bm25Benchmark.defaultWarmUpPasses(50_000)).isEqualTo(1);
    assertThat(Bm25Benchmark.defaultWarmUpPasses(1)).isEqualTo(20_000);
  }

  @Test
  void hitsThatDifferInIdOrScoreFailTheComparison() {
    List<ScoredId> inProcess = List.of(new ScoredId("a", 2f), new ScoredId("b", 1f));

    assertThatCode(
            () ->
                Bm25Benchmark.requireSameHits(
                    0, "gRPC", inProcess, List.of(scored("a", 2f), scored("b", 1f))))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                Bm25Benchmark.requireSameHits(
                    3, "gRPC stream", inProcess, List.of(scored("b", 2f), scored("a", 1f))))
        .hasMessageContaining("query 3")
        .hasMessageContaining("in-process and gRPC stream paths returned different hits");
    assertThatThrownBy(
            () ->
                Bm25Benchmark.requireSameHits(
                    0, "gRPC", inProcess, List.of(scored("a", Math.nextUp(2f)), scored("b", 1f))))
        .hasMessageContaining("different hits");
    assertThatThrownBy(
            () -> Bm25Benchmark.requireSameHits(0, "gRPC", inProcess, List.of(scored("a", 2f))))
        .hasMessageContaining("different hits");
  }

  private static ScoredDocument scored(String id, float score) {
    return ScoredDocument.newBuilder().setDocId(id).setScore(score).build();
  }
}
