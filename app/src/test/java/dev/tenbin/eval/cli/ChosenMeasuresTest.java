package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.job.JobJudgments;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's own measures ({@code measures:} in its spec, {@code tenbin report --measure}): measured
 * on the stored rankings against the judgments the job keeps, equal to {@code tenbin metrics -m}
 * (which equals {@code trec_eval -c}) on the cell exported as a run and that judgments file.
 */
class ChosenMeasuresTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private Path job(String measures) throws Exception {
    TinyJob.write(tmp);
    Path spec =
        Files.writeString(
            tmp.resolve("job.yaml"), "task_sets: [tasks.yaml]\nretrievers: [bm25]\n" + measures);
    Path out = tmp.resolve("out");
    CliRunner run = TinyJob.run(tmp, spec, out, tmp.resolve("cache"));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return out;
  }

  @Test
  void theJobsMeasuresEqualTenbinMetricsOnTheExportedRunAndTheKeptJudgments() throws Exception {
    Path out = job("measures:\n  - P.1,2,3\n  - ndcg_cut.1,10\n  - recip_rank\n");
    CellRecord cell = ResultStore.open(out).readAll().getFirst();
    Path judgments = JobJudgments.file(out, cell.versions().get("dataset_sha"));
    Path run = tmp.resolve("bm25.trec");
    CliRunner export =
        CliRunner.run(
            "export",
            "trec",
            out.toString(),
            "--cell",
            cell.fingerprint(),
            "--out",
            run.toString());
    assertThat(export.exitCode()).as(export.err()).isZero();
    CliRunner metrics =
        CliRunner.run(
            "metrics",
            "--qrels",
            judgments.toString(),
            "--run",
            run.toString(),
            "-m",
            "P.1,2,3",
            "-m",
            "ndcg_cut.1,10",
            "-m",
            "recip_rank",
            "--json");
    assertThat(metrics.exitCode()).as(metrics.err()).isZero();
    JsonNode reference = JSON.readTree(metrics.out()).get("metrics");

    JsonNode measures = JSON.readTree(out.resolve("leaderboard.json").toFile()).get("measures");
    assertThat(measures.get("trec_eval"))
        .extracting(JsonNode::asText)
        .containsExactly("P.1,2,3", "ndcg_cut.1,10", "recip_rank");
    assertThat(measures.get("names"))
        .extracting(JsonNode::asText)
        .containsExactly("precision@1", "precision@2", "precision@3", "ndcg@1", "ndcg@10", "mrr");
    JsonNode values = measures.get("rows").get(0).get("tasks").get("tiny-bench/tiny");
    for (String name : List.of("precision@1", "precision@2", "precision@3", "ndcg@1", "mrr")) {
      assertThat(values.get(name).get("value").asDouble())
          .as(name)
          .isEqualTo(reference.get(name).asDouble());
    }
    // By hand: BM25 ranks q1's d1 first, then d2 (both say "grow"); q2 and q3 match one document
    // each, their judged one; q3 has a second relevant document that is not in the corpus.
    assertThat(values.get("precision@1").get("value").asDouble()).isEqualTo(1.0);
    assertThat(values.get("precision@2").get("value").asDouble()).isEqualTo(0.5);
    assertThat(values.get("precision@3").get("value").asDouble())
        .isCloseTo(1.0 / 3, org.assertj.core.data.Offset.offset(1e-15));
    assertThat(values.get("ndcg@10").get("value").asDouble())
        .isCloseTo(
            (2 + 1 / (1 + 1 / (Math.log(3) / Math.log(2)))) / 3,
            org.assertj.core.data.Offset.offset(1e-12));
    // ndcg_cut.10 is the cell's own nDCG@10, to the last bit.
    assertThat(values.get("ndcg@10").get("value").asDouble())
        .isEqualTo(cell.metrics().get("ndcg@10"))
        .isEqualTo(reference.get("ndcg@10").asDouble());
    assertThat(values.get("ndcg@10").get("expected").asDouble())
        .isEqualTo(cell.tieAware().get("ndcg@10").expected());
    // The judgments of the evaluated queries only (q4 has none, q9 is no query of the task).
    assertThat(Files.readAllLines(judgments))
        .containsExactly("q1 0 d1 1", "q2 0 d4 2", "q3 0 d3 1", "q3 0 missing-doc 1");
    String markdown = Files.readString(out.resolve("leaderboard.md"));
    assertThat(markdown)
        .contains(
            "## Chosen measures",
            "trec\\_eval -c -m P.1,2,3 -m ndcg\\_cut.1,10 -m recip\\_rank",
            "### precision@3");
    assertThat(Files.readString(out.resolve("leaderboard.html")))
        .contains("<h2>Chosen measures</h2>", "<h3>mrr</h3>");
  }

  @Test
  void aReportChoosesItsOwnMeasuresAndSaysWhichCellsItCouldNotMeasure() throws Exception {
    Path out = job("");
    assertThat(JSON.readTree(out.resolve("leaderboard.json").toFile()).get("measures").isNull())
        .isTrue();

    CliRunner report =
        CliRunner.run("report", out.toString(), "-m", "recall.1,2", "--format", "json");
    assertThat(report.exitCode()).as(report.err()).isZero();
    JsonNode measures = JSON.readTree(report.out()).get("measures");
    assertThat(measures.get("names"))
        .extracting(JsonNode::asText)
        .containsExactly("recall@1", "recall@2");
    assertThat(measures.get("unmeasured_cells").asInt()).isZero();
    JsonNode tiny = measures.get("rows").get(0).get("tasks").get("tiny-bench/tiny");
    assertThat(tiny.get("recall@1").get("value").asDouble())
        .isCloseTo((1 + 1 + 0.5) / 3, org.assertj.core.data.Offset.offset(1e-15));

    try (var files = Files.list(out.resolve(JobJudgments.FOLDER))) {
      for (Path file : files.toList()) {
        Files.delete(file);
      }
    }
    CliRunner without =
        CliRunner.run("report", out.toString(), "-m", "recall.1", "--format", "markdown");
    assertThat(without.exitCode()).as(without.err()).isZero();
    assertThat(without.out())
        .contains("### recall@1", "1 cell is not measured (–): its job folder keeps no judgments");
  }

  @Test
  void aMeasureThatIsNoneIsRefusedNamingTheField() throws Exception {
    TinyJob.write(tmp);
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\nmeasures: [P.5,10]\n");
    CliRunner unquoted = TinyJob.run(tmp, spec, tmp.resolve("a"), tmp.resolve("cache"));
    assertThat(unquoted.exitCode()).isEqualTo(2);
    assertThat(unquoted.err())
        .contains("field measures[1]", "quote it in a flow list")
        .doesNotContain("Exception");

    Files.writeString(spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\nmeasures: [bpref]\n");
    CliRunner unknown = TinyJob.run(tmp, spec, tmp.resolve("b"), tmp.resolve("cache"));
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.err()).contains("field measures", "unknown measure 'bpref'");

    Files.writeString(
        spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\nmeasures: [\"P.5,10\", ndcg_cut.0]\n");
    CliRunner zero = TinyJob.run(tmp, spec, tmp.resolve("c"), tmp.resolve("cache"));
    assertThat(zero.exitCode()).isEqualTo(2);
    assertThat(zero.err()).contains("a cut-off is a positive integer");

    CliRunner report = CliRunner.run("report", tmp.toString(), "-m", "P.x");
    assertThat(report.exitCode()).isEqualTo(2);
    assertThat(report.err()).contains("--measure").doesNotContain("Exception");
  }
}
