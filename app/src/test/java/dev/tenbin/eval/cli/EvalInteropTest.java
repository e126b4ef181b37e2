package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.scoring.beir.DatasetFingerprint;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin eval}'s --split, --bm25-k1/--bm25-b, --latency-concurrency and its check of
 * --variant.
 */
class EvalInteropTest {
  @TempDir Path tmp;

  private Path tinyWithDevSplit() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    // dev judges only q1 and q2 (q3's judgment moves to another document).
    Files.writeString(
        data.resolve("qrels/dev.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n",
        StandardCharsets.UTF_8);
    return data;
  }

  private JsonNode evalJson(String... args) throws Exception {
    CliRunner result = CliRunner.run(args);
    assertThat(result.exitCode()).as(result.err()).isZero();
    return new ObjectMapper().readTree(result.out()).get("runs").get(0);
  }

  @Test
  void splitEvaluatesAgainstThatSplitsQrelsAsADatasetOfItsOwn() throws Exception {
    Path data = tinyWithDevSplit();
    String defaultFingerprint = DatasetFingerprint.of(data);

    JsonNode test = evalJson("eval", "--dataset", data.toString(), "--json");
    JsonNode dev = evalJson("eval", "--dataset", data.toString(), "--split", "dev", "--json");

    assertThat(test.get("num_queries").asInt()).isEqualTo(3);
    assertThat(dev.get("num_queries").asInt()).isEqualTo(2);
    // q2's dev judgment (d2, bananas) is not what "train station" finds first.
    assertThat(dev.get("metrics").get("accuracy@1").asDouble()).isEqualTo(0.5);
    assertThat(DatasetFingerprint.of(data, "test")).isEqualTo(defaultFingerprint);
    assertThat(DatasetFingerprint.of(data, "dev")).isNotEqualTo(defaultFingerprint);
  }

  @Test
  void aMissingSplitIsAnErrorListingTheSplitsPresent() throws Exception {
    Path data = tinyWithDevSplit();

    CliRunner result =
        CliRunner.run("eval", "--dataset", data.toString(), "--split", "train", "--json");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err()).contains("no split 'train'", "splits present: dev, test");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void bm25ParametersReachTheIndexAndNameASystemOfTheirOwn() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));
    Path defaults = tmp.resolve("defaults");
    Path tuned = tmp.resolve("tuned");

    CliRunner first =
        CliRunner.run("eval", "--dataset", data.toString(), "--out", defaults.toString());
    CliRunner second =
        CliRunner.run(
            "eval",
            "--dataset",
            data.toString(),
            "--bm25-k1",
            "0",
            "--bm25-b",
            "1",
            "--json",
            "--out",
            tuned.toString());

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(second.exitCode()).as(second.err()).isZero();
    JsonNode run = new ObjectMapper().readTree(second.out()).get("runs").get(0);
    assertThat(run.get("retriever").asText()).isEqualTo("bm25:k1=0.0,b=1.0");
    // k1 = 0 ignores term frequency: "where do apples grow" no longer scores d1 as before.
    assertThat(firstScore(tuned)).isNotEqualTo(firstScore(defaults));
  }

  @Test
  void bm25ParametersNeedTheBm25RetrieverAndValidValues() {
    CliRunner outOfRange =
        CliRunner.run("eval", "--dataset", tmp.toString(), "--bm25-b", "1.5", "--json");

    assertThat(outOfRange.exitCode()).isNotZero();
    assertThat(outOfRange.err()).contains("b must be within [0, 1]");
  }

  @Test
  void eachRunStoresTheQueriesInFlightOfItsConcurrentLatency() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));

    CliRunner two =
        CliRunner.run("eval", "--dataset", data.toString(), "--latency-concurrency", "2", "--json");
    CliRunner byDefault = CliRunner.run("eval", "--dataset", data.toString(), "--json");

    assertThat(two.exitCode()).as(two.err()).isZero();
    assertThat(byDefault.exitCode()).as(byDefault.err()).isZero();
    JsonNode run = new ObjectMapper().readTree(two.out()).get("runs").get(0);
    JsonNode diagnostics = run.get("diagnostics");
    assertThat(diagnostics.get("concurrent_latency_in_flight").asInt()).isEqualTo(2);
    assertThat(diagnostics.get("concurrent_latency_p50_us").asDouble())
        .isPositive()
        .isLessThanOrEqualTo(diagnostics.get("concurrent_latency_p99_us").asDouble());
    assertThat(diagnostics.get("concurrent_queries_per_second").asDouble()).isPositive();
    assertThat(run.get("timings_ms").get("concurrent_latency_p50_us").asDouble())
        .isEqualTo(diagnostics.get("concurrent_latency_p50_us").asDouble());
    // the default is 4 in flight; the collection has 3 evaluated queries, all in flight together
    JsonNode defaults =
        new ObjectMapper().readTree(byDefault.out()).get("runs").get(0).get("diagnostics");
    assertThat(defaults.get("concurrent_latency_in_flight").asInt()).isEqualTo(3);
  }

  @Test
  void theLatencyConcurrencyMustBeAPositiveNumber() {
    CliRunner zero =
        CliRunner.run("eval", "--dataset", tmp.toString(), "--latency-concurrency", "0", "--json");
    CliRunner text =
        CliRunner.run(
            "eval", "--dataset", tmp.toString(), "--latency-concurrency", "many", "--json");

    assertThat(zero.exitCode()).isNotZero();
    assertThat(zero.err()).contains("--latency-concurrency must be within 1..256, got 0");
    assertThat(text.exitCode()).isNotZero();
    assertThat(text.err()).contains("--latency-concurrency", "many");
  }

  @Test
  void aVariantThatNoRetrieverHasIsAnErrorNamingVariant() throws Exception {
    Path data = TinyBeir.write(tmp.resolve("tiny"));

    CliRunner result =
        CliRunner.run(
            "eval", "--dataset", data.toString(), "--retriever", "bm25", "--variant", "int8");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err()).contains("--variant int8 applies to none of the retrievers [bm25]");
  }

  @Test
  void theEvalTableStaysAlignedWithLongRetrieverAndVariantNames() throws Exception {
    var data = dev.tenbin.scoring.beir.BeirDatasetReader.read(TinyBeir.write(tmp.resolve("tiny")));
    var result =
        new dev.tenbin.eval.retrieval.RetrievalResult(
            java.util.Map.of("q1", List.of(new dev.tenbin.scoring.metrics.ScoredDoc("d1", 1.0))),
            0,
            0,
            4);
    List<dev.tenbin.eval.result.CellResult> runs =
        List.of(
            dev.tenbin.eval.retrieval.RunScorer.score(
                data, "bm25", "base", dev.tenbin.eval.result.RankingMode.RETRIEVAL, result),
            dev.tenbin.eval.retrieval.RunScorer.score(
                data,
                "dense:a-rather-long-organisation-model-name-v1.5",
                "truncate256_binary_rescore",
                dev.tenbin.eval.result.RankingMode.RERANK_WITHOUT_SAFEGUARD,
                result));

    String table =
        new dev.tenbin.eval.report.EvalReport("tiny", "en", "flag", runs, List.of()).toTable();

    List<String> lines = table.lines().skip(1).toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.stream().map(String::length).distinct()).hasSize(1);
    int queriesColumn = lines.getFirst().indexOf("queries") + "queries".length();
    assertThat(lines.get(1).charAt(queriesColumn - 1)).isEqualTo('3');
    assertThat(lines.get(2).charAt(queriesColumn - 1)).isEqualTo('3');
  }

  private static String firstScore(Path out) throws Exception {
    try (Stream<Path> files = Files.list(out.resolve("runs"))) {
      Path run = files.filter(f -> f.toString().endsWith(".trec")).findFirst().orElseThrow();
      List<String> lines = Files.readAllLines(run, StandardCharsets.UTF_8);
      return lines.getFirst().split(" ")[4];
    }
  }
}
