package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.index.server.IndexServer;
import dev.tenbin.testing.data.TinyBeir;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalCommandTest {
  @TempDir Path tmp;

  @Test
  void bm25EvalPrintsOneJsonObjectWithTheStandardMetrics() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    CliRunner result =
        CliRunner.run("eval", "--dataset", data.toString(), "--retriever", "bm25", "--json");

    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(result.out());
    assertThat(json.get("dataset").asText()).isEqualTo("tiny");
    JsonNode run = json.get("runs").get(0);
    assertThat(run.get("retriever").asText()).isEqualTo("bm25");
    assertThat(run.get("variant").asText()).isEqualTo("base");
    assertThat(run.get("mode").asText()).isEqualTo("retrieval");
    // q4 has no judgment and q9 is not in queries.jsonl: three queries are evaluated.
    assertThat(run.get("num_queries").asInt()).isEqualTo(3);
    List<String> keys = new java.util.ArrayList<>();
    run.get("metrics").fieldNames().forEachRemaining(keys::add);
    assertThat(keys)
        .containsExactly(
            "ndcg@10",
            "ndcg@100",
            "recall@10",
            "recall@100",
            "precision@10",
            "accuracy@1",
            "accuracy@10",
            "accuracy@100",
            "mrr@10",
            "map@100");
    // Each query's judged document comes first; q3 also judges a document absent from the
    // corpus, so its recall is 1/2 and its nDCG@10 is 1 / (1 + 1/log2(3)).
    double q3Ndcg = 1.0 / (1.0 + 1.0 / (Math.log(3) / Math.log(2)));
    assertThat(run.get("metrics").get("ndcg@10").asDouble())
        .isCloseTo((1 + 1 + q3Ndcg) / 3, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(run.get("metrics").get("recall@100").asDouble())
        .isCloseTo(2.5 / 3, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(run.get("metrics").get("accuracy@1").asDouble()).isEqualTo(1.0);
    assertThat(run.get("tie_aware").get("ndcg@10").get("range").asDouble())
        .isGreaterThanOrEqualTo(0.0);
    assertThat(result.err())
        .contains("absent from queries.jsonl")
        .contains("absent from corpus.jsonl");
  }

  @Test
  void outFolderReceivesResultsRunFilesAndPerQueryMetrics() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path out = tmp.resolve("out");
    CliRunner result = CliRunner.run("eval", "--dataset", data.toString(), "--out", out.toString());

    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).contains("ndcg@10").contains("bm25");
    assertThat(out.resolve("results.json")).exists();
    List<String> runLines =
        Files.readAllLines(out.resolve("runs/bm25.base.retrieval.trec"), StandardCharsets.UTF_8);
    assertThat(runLines.getFirst()).startsWith("q1 Q0 d1 1 ");
    assertThat(Files.readAllLines(out.resolve("per_query/bm25.base.retrieval.tsv")).getFirst())
        .startsWith("query_id\tndcg@10");
  }

  @Test
  void aRunningIndexServiceCanBeUsedInsteadOfTheEmbeddedOne() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path indexData = tmp.resolve("index-data");
    var catalog = dev.tenbin.index.collection.CollectionCatalog.open(indexData);
    var host =
        dev.tenbin.rpc.GrpcServerHost.start(
            new dev.tenbin.rpc.ServerSettings(
                "127.0.0.1", 0, -1, 1 << 24, java.time.Duration.ofSeconds(1)),
            IndexServer.services(
                catalog, dev.tenbin.index.config.IndexServiceConfig.embedded(indexData)));
    try {
      CliRunner remote =
          CliRunner.run(
              "eval",
              "--dataset",
              data.toString(),
              "--json",
              "--index-endpoint",
              "127.0.0.1:" + host.port());
      CliRunner embedded = CliRunner.run("eval", "--dataset", data.toString(), "--json");
      assertThat(remote.exitCode()).as(remote.err()).isZero();
      JsonNode remoteRun = new ObjectMapper().readTree(remote.out()).get("runs").get(0);
      JsonNode embeddedRun = new ObjectMapper().readTree(embedded.out()).get("runs").get(0);
      assertThat(remoteRun.get("metrics")).isEqualTo(embeddedRun.get("metrics"));
      assertThat(catalog.list()).as("the eval collection is dropped afterwards").isEmpty();
    } finally {
      host.close();
      catalog.close();
    }
  }

  @Test
  void denseRetrievalDerivesTheEfficiencyVariantsFromOneEncode() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "dense:all-minilm-l6-v2",
            "--json",
            "--cache-dir",
            tmp.resolve("cache").toString());
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode runs = new ObjectMapper().readTree(result.out()).get("runs");
    List<String> variants = new java.util.ArrayList<>();
    runs.forEach(r -> variants.add(r.get("variant").asText()));
    assertThat(variants)
        .containsExactly("base", "int8", "binary", "int8_rescore", "binary_rescore");
    assertThat(runs.get(0).get("diagnostics").get("bytes_per_vector").asInt()).isEqualTo(384 * 4);
    assertThat(runs.get(1).get("diagnostics").get("bytes_per_vector").asInt()).isEqualTo(384);
    assertThat(runs.get(1).get("diagnostics").has("int8_query_clip_rate")).isTrue();
    assertThat(runs.get(2).get("diagnostics").get("bytes_per_vector").asInt()).isEqualTo(48);
    assertThat(runs.get(0).get("metrics").get("accuracy@1").asDouble()).isEqualTo(1.0);
    assertThat(result.err()).contains("encoding documents with all-minilm-l6-v2: 4/4");
    // Stored bytes add the float vectors to a rescore; scanned bytes are the first stage's.
    int[][] storedAndScanned = {
      {384 * 4, 384 * 4}, {384, 384}, {48, 48}, {384 + 384 * 4, 384}, {48 + 384 * 4, 48}
    };
    for (int i = 0; i < storedAndScanned.length; i++) {
      JsonNode diagnostics = runs.get(i).get("diagnostics");
      assertThat(diagnostics.get("stored_bytes_per_vector").asInt())
          .as(variants.get(i))
          .isEqualTo(storedAndScanned[i][0]);
      assertThat(diagnostics.get("scanned_bytes_per_vector").asInt())
          .as(variants.get(i))
          .isEqualTo(storedAndScanned[i][1]);
    }
    JsonNode calibration = runs.get(1).get("diagnostics").get("int8_calibration");
    assertThat(calibration.get("dimensions").asInt()).isEqualTo(384);
    assertThat(calibration.get("min")).hasSize(384);
    assertThat(calibration.get("max")).hasSize(384);
    for (int d = 0; d < 384; d++) {
      assertThat(calibration.get("min").get(d).asDouble())
          .isLessThanOrEqualTo(calibration.get("max").get(d).asDouble());
    }
    assertThat(calibration.get("sha256").asText()).matches("[0-9a-f]{64}");
    assertThat(calibration.get("document_clip_rate").asDouble()).isZero();
    // Four documents: each dimension's minimum and maximum take the end codes.
    assertThat(calibration.get("document_saturation_rate").asDouble()).isGreaterThanOrEqualTo(0.5);
    assertThat(calibration.get("query_clip_rate").asDouble())
        .isEqualTo(runs.get(1).get("diagnostics").get("int8_query_clip_rate").asDouble());
    assertThat(calibration.get("query_saturation_rate").asDouble())
        .isGreaterThanOrEqualTo(calibration.get("query_clip_rate").asDouble());
    assertThat(runs.get(0).get("diagnostics").has("int8_calibration")).isFalse();
  }

  @Test
  void hnswOverEachQuantizationRunsFromTheCommandLineAndReportsItsRecallAndBytes()
      throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--retriever",
            "dense:all-minilm-l6-v2",
            "--variant",
            "hnsw_int8",
            "--variant",
            "truncate128_hnsw_binary_rescore",
            "--json",
            "--cache-dir",
            tmp.resolve("cache").toString());
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode runs = new ObjectMapper().readTree(result.out()).get("runs");
    assertThat(runs).hasSize(2);
    JsonNode int8 = runs.get(0).get("diagnostics");
    assertThat(runs.get(0).get("variant").asText()).isEqualTo("hnsw_int8");
    assertThat(int8.get("hnsw_recall_vs_exact").asDouble()).isBetween(0.0, 1.0);
    assertThat(int8.get("stored_bytes_per_vector").asInt()).isEqualTo(384);
    assertThat(int8.has("int8_calibration")).isTrue();
    JsonNode binary = runs.get(1).get("diagnostics");
    assertThat(binary.get("scanned_bytes_per_vector").asInt()).isEqualTo(16);
    assertThat(binary.get("stored_bytes_per_vector").asInt()).isEqualTo(16 + 128 * 4);
    // Four documents: the graph finds them all.
    assertThat(binary.get("hnsw_recall_vs_exact").asDouble()).isEqualTo(1.0);
  }

  @Test
  void aVariantRescoringAFloatFirstStageIsRefusedNamingTheVariant() {
    CliRunner result =
        CliRunner.run(
            "eval",
            "--dataset",
            tmp.toString(),
            "--retriever",
            "dense:all-minilm-l6-v2",
            "--variant",
            "hnsw_rescore");
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err()).contains("'hnsw_rescore'").contains("rescore needs int8 or binary");
  }

  private static <T> Iterable<T> iterable(java.util.Iterator<T> iterator) {
    return () -> iterator;
  }

  static SimpleMeterRegistry registry() {
    return new SimpleMeterRegistry();
  }
}
