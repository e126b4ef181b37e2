package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MetricsCommandTest {
  private static final Offset<Double> FOUR_DECIMALS = within(5e-5);
  private static final List<String> METRICS =
      List.of(
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

  @TempDir Path tmp;
  private Path qrels;
  private Path run;

  private record Result(int exitCode, String out, String err) {}

  private static Result execute(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new MetricsCommand());
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exitCode = cli.execute(args);
    return new Result(exitCode, out.toString(), err.toString());
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @BeforeEach
  void writeFiles() throws Exception {
    // q1: a (grade 1) and b (grade 2) tie at 5.0; q2 is judged but absent from the run; q3 is
    // judged only non-relevant; q9 is in the run but not judged.
    qrels = Files.writeString(tmp.resolve("qrels.txt"), "q1 0 a 1\nq1 0 b 2\nq2 0 c 1\nq3 0 x 0\n");
    run =
        Files.writeString(
            tmp.resolve("run.txt"),
            "q1 Q0 a 1 5.0 t\nq1 Q0 b 2 5.0 t\nq3 Q0 x 1 1 t\nq9 Q0 z 1 1 t\n");
  }

  @Test
  void jsonIsOneObjectWithTrecEvalMeansOverEveryJudgedQueryAndTieAwareValues() throws Exception {
    Result result = execute("--qrels", qrels.toString(), "--run", run.toString(), "--json");
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out().strip()).doesNotContain("\n");
    JsonNode json = new ObjectMapper().readTree(result.out());
    assertThat(fieldNames(json))
        .containsExactly("qrels", "run", "num_queries", "metrics", "tie_aware", "timings_ms");
    assertThat(fieldNames(json.get("timings_ms"))).containsExactly("read", "evaluate");
    assertThat(json.get("timings_ms").get("read").asDouble()).isPositive();
    assertThat(json.get("timings_ms").get("evaluate").asDouble()).isPositive();
    assertThat(json.get("qrels").asText()).isEqualTo(qrels.toString());
    assertThat(json.get("run").asText()).isEqualTo(run.toString());
    assertThat(json.get("num_queries").asInt()).isEqualTo(3);
    assertThat(fieldNames(json.get("metrics"))).containsExactlyElementsOf(METRICS);
    assertThat(fieldNames(json.get("tie_aware"))).containsExactlyElementsOf(METRICS);
    // trec_eval puts b before a (docno descending): q1 is ideal (1 on every metric but
    // precision@10, which is 2/10), q2 and q3 score 0, so every mean is 1/3 and precision@10's
    // 0.2/3.
    for (String metric : METRICS) {
      assertThat(json.get("metrics").get(metric).asDouble())
          .as(metric)
          .isCloseTo(metric.equals("precision@10") ? 0.2 / 3 : 1.0 / 3, within(1e-12));
    }
    // nDCG@10 of q1 over the two orders: b, a -> 1; a, b -> (1 + 2/log2(3)) / (2 + 1/log2(3)) =
    // 0.8597. Per query expected 0.9299, min 0.8597, max 1, bias 1 - 0.9299; means over 3 queries:
    JsonNode ndcg = json.get("tie_aware").get("ndcg@10");
    assertThat(fieldNames(ndcg)).containsExactly("expected", "min", "max", "range", "bias");
    assertThat(ndcg.get("expected").asDouble()).isCloseTo(0.3100, FOUR_DECIMALS);
    assertThat(ndcg.get("min").asDouble()).isCloseTo(0.2866, FOUR_DECIMALS);
    assertThat(ndcg.get("max").asDouble()).isCloseTo(0.3333, FOUR_DECIMALS);
    assertThat(ndcg.get("range").asDouble()).isCloseTo(0.0468, FOUR_DECIMALS);
    assertThat(ndcg.get("bias").asDouble()).isCloseTo(0.0234, FOUR_DECIMALS);
    // Both documents are relevant, so recall cannot move with the order of the tie.
    assertThat(json.get("tie_aware").get("recall@10").get("range").asDouble()).isZero();
  }

  @Test
  void measuresAreChosenAsTrecEvalsAndComputedAtTheirCutOffs() throws Exception {
    Result result =
        execute(
            "--qrels",
            qrels.toString(),
            "--run",
            run.toString(),
            "--json",
            "-m",
            "P.1,2,5",
            "-m",
            "ndcg_cut.1",
            "--measure",
            "recip_rank");
    assertThat(result.exitCode()).as(result.err()).isZero();
    JsonNode metrics = new ObjectMapper().readTree(result.out()).get("metrics");
    assertThat(fieldNames(metrics))
        .containsExactly("precision@1", "precision@2", "precision@5", "ndcg@1", "mrr");
    // q1 (b, a: both relevant) then q2 and q3 at 0: P@1 = 1/3, P@2 = 1/3, P@5 = (2/5)/3
    assertThat(metrics.get("precision@1").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
    assertThat(metrics.get("precision@2").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
    assertThat(metrics.get("precision@5").asDouble()).isCloseTo(0.4 / 3, within(1e-12));
    // ndcg@1: b (grade 2) first, the ideal's first grade is 2
    assertThat(metrics.get("ndcg@1").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
    assertThat(metrics.get("mrr").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
    // the tie of a and b moves P@1 (a is relevant too, so it does not) and ndcg@1 (a has grade 1)
    JsonNode tieAware = new ObjectMapper().readTree(result.out()).get("tie_aware");
    assertThat(tieAware.get("precision@1").get("range").asDouble()).isZero();
    assertThat(tieAware.get("ndcg@1").get("min").asDouble()).isCloseTo(0.5 / 3, within(1e-12));
  }

  @Test
  void anUnknownMeasureIsABadOptionNamingIt() {
    CliRunner result =
        CliRunner.run(
            "metrics", "--qrels", qrels.toString(), "--run", run.toString(), "-m", "bpref");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("unknown measure 'bpref'").doesNotContain("Exception");
    CliRunner cut =
        CliRunner.run("metrics", "--qrels", qrels.toString(), "--run", run.toString(), "-m", "P.0");
    assertThat(cut.exitCode()).isEqualTo(2);
    assertThat(cut.err()).contains("a cut-off is a positive integer, got '0'");
  }

  @Test
  void runQueriesWithoutJudgmentsAreIgnoredWithAWarning() {
    Result result = execute("--qrels", qrels.toString(), "--run", run.toString(), "--json");
    assertThat(result.err())
        .contains("warning: ignoring 1 run query without judgments")
        .contains(": q9");
  }

  @Test
  void repeatedDocnosAreWarnedAboutAndCountedOnce() throws Exception {
    Path repeated =
        Files.writeString(tmp.resolve("repeated.txt"), "q2 Q0 c 1 2 t\nq2 Q0 c 2 1 t\n");
    Result result = execute("--qrels", qrels.toString(), "--run", repeated.toString(), "--json");
    assertThat(result.exitCode()).isZero();
    assertThat(result.err()).contains("warning: 1 run line repeats a docno");
    // q2 is perfect once c counts once; q1 and q3 score 0.
    JsonNode json = new ObjectMapper().readTree(result.out());
    assertThat(json.get("metrics").get("recall@100").asDouble()).isCloseTo(1.0 / 3, within(1e-12));
  }

  @Test
  void withoutJsonATablePrintsEachMetricWithItsTieAwareValues() {
    Result result = execute("--qrels", qrels.toString(), "--run", run.toString());
    assertThat(result.exitCode()).isZero();
    List<String> lines = result.out().lines().toList();
    assertThat(lines).contains("queries  3");
    assertThat(lines)
        .anySatisfy(
            line -> assertThat(line).startsWith("metric").contains("expected").contains("bias"));
    String ndcgLine =
        lines.stream().filter(line -> line.startsWith("ndcg@10 ")).findFirst().orElseThrow();
    assertThat(ndcgLine.split("\\s+"))
        .containsExactly("ndcg@10", "0.3333", "0.3100", "0.2866", "0.3333", "0.0468", "0.0234");
    assertThat(
            lines.stream().filter(line -> METRICS.stream().anyMatch(m -> line.startsWith(m + " "))))
        .hasSize(10);
  }

  @Test
  void aMissingFileFailsWithOneMessageAndExitCodeTwo() {
    Result result = execute("--qrels", tmp.resolve("none").toString(), "--run", run.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err().strip())
        .startsWith("tenbin metrics: qrels file not found")
        .doesNotContain("\n");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void aMalformedRunLineFailsWithItsLineNumberAndExitCodeTwo() throws Exception {
    Path bad = Files.writeString(tmp.resolve("bad.txt"), "q1 Q0 a 1 5.0 t\nq1 Q0 b 2 high t\n");
    Result result = execute("--qrels", qrels.toString(), "--run", bad.toString(), "--json");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("bad.txt line 2")
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void aMissingOptionIsAUsageError() {
    Result result = execute("--qrels", qrels.toString());
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("--run");
  }

  @Test
  void helpDescribesEveryOption() {
    Result result = execute("--help");
    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).contains("--qrels", "--run", "--json", "trec_eval");
  }
}
