package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job with BM25 parameters and a local task's split, a TREC run imported beside it, and the
 * stored cells exported as MTEB results and read back as the official ranking.
 */
class JobInteropTest {
  @TempDir Path tmp;

  private Path job() throws Exception {
    Path data = TinyJob.write(tmp);
    Files.writeString(
        data.resolve("qrels/dev.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t1\n",
        StandardCharsets.UTF_8);
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        """
        name: tiny-bench
        tasks:
          - name: tiny
            language: en
            source: {path: data/tiny}
          - name: tiny-dev
            language: en
            source: {path: data/tiny, split: dev}
        """);
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        task_sets: [tasks.yaml]
        retrievers:
          - bm25
          - {retriever: bm25, k1: 1.2, b: 0.75}
        """);
    Path out = tmp.resolve("out");
    CliRunner run = TinyJob.run(tmp, spec, out, tmp.resolve("cache"), "--no-reports");
    assertThat(run.exitCode()).as(run.err()).isZero();
    return out;
  }

  @Test
  void bm25ParametersAndSplitsAreCellsOfTheirOwn() throws Exception {
    Path out = job();

    List<CellRecord> cells = ResultStore.open(out).readAll();
    assertThat(cells)
        .extracting(c -> c.key().system().name() + " " + c.key().task().task())
        .containsExactlyInAnyOrder(
            "bm25 tiny", "bm25 tiny-dev", "bm25:k1=1.2,b=0.75 tiny", "bm25:k1=1.2,b=0.75 tiny-dev");
    CellRecord dev =
        cells.stream()
            .filter(
                c ->
                    c.key().task().task().equals("tiny-dev")
                        && c.key().system().name().equals("bm25"))
            .findFirst()
            .orElseThrow();
    assertThat(dev.queries()).extracting(q -> q.queryId()).containsExactly("q1");
    assertThat(dev.versions()).containsEntry("split", "dev");
    assertThat(cells.stream().map(CellRecord::fingerprint).distinct()).hasSize(4);
  }

  @Test
  void aSpecsRunsAreImportedAfterItsOwnCellsAndKeptOnARerun() throws Exception {
    Path data = TinyJob.write(tmp);
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        "name: tiny-bench\ntasks:\n  - {name: tiny, language: en, source: {path: data/tiny}}\n");
    Files.writeString(tmp.resolve("mine.trec"), "q1 Q0 d1 1 3.0 mine\nq3 Q0 d3 1 5.0 mine\n");
    Path spec =
        Files.writeString(
            tmp.resolve("job.yaml"),
            "task_sets: [tasks.yaml]\nretrievers: [bm25]\n"
                + "runs: [{name: mine, file: mine.trec, task: tiny}]\n");
    Path out = tmp.resolve("out-runs");

    CliRunner first = TinyJob.run(tmp, spec, out, tmp.resolve("cache"));
    CliRunner second = TinyJob.run(tmp, spec, out, tmp.resolve("cache"));

    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.err()).contains("tenbin: imported external:mine");
    assertThat(second.err()).contains("tenbin: already stored external:mine");
    assertThat(ResultStore.open(out).readAll())
        .extracting(c -> c.key().system().name())
        .containsExactlyInAnyOrder("bm25", "external:mine");
    assertThat(first.out()).contains("external:mine");
    assertThat(data).exists();

    Files.writeString(
        spec,
        "task_sets: [tasks.yaml]\nretrievers: [bm25]\n"
            + "runs: [{name: mine, file: mine.trec, task: nope}]\n");
    CliRunner wrongTask = TinyJob.run(tmp, spec, out, tmp.resolve("cache"));
    assertThat(wrongTask.exitCode()).isEqualTo(2);
    assertThat(wrongTask.err()).contains("runs: task nope is none of the job's tasks: tiny");
    Files.writeString(
        spec, "task_sets: [tasks.yaml]\nretrievers: [bm25]\nruns: [{name: two words}]\n");
    CliRunner badName = TinyJob.run(tmp, spec, out, tmp.resolve("cache"));
    assertThat(badName.exitCode()).isEqualTo(2);
    assertThat(badName.err()).contains("runs[0].name").doesNotContain("Exception");
  }

  @Test
  void anImportedRunIsASystemOfItsOwnInTheJobsLeaderboard() throws Exception {
    Path out = job();
    Path run = tmp.resolve("mine.trec");
    // q1 perfect; q2's judged d4 second behind d1 (tied with d3: trec_eval's order, docid desc);
    // q3 judged d3 first; q9 is not a query of the task.
    Files.writeString(
        run,
        """
        q1 Q0 d1 1 3.0 mine
        q2 Q0 d1 1 2.0 mine
        q2 Q0 d3 2 1.0 mine
        q2 Q0 d4 3 1.0 mine
        q3 Q0 d3 1 5.0 mine
        q9 Q0 d2 1 1.0 mine
        """);

    CliRunner imported =
        CliRunner.run(
            "import-run",
            "--run",
            run.toString(),
            "--dataset",
            tmp.resolve("data/tiny").toString(),
            "--name",
            "mine",
            "--task",
            "tiny",
            "--out",
            out.toString());
    CliRunner again =
        CliRunner.run(
            "import-run",
            "--run",
            run.toString(),
            "--dataset",
            tmp.resolve("data/tiny").toString(),
            "--name",
            "mine",
            "--task",
            "tiny",
            "--out",
            out.toString());

    assertThat(imported.exitCode()).as(imported.err()).isZero();
    assertThat(imported.err())
        .contains("1 query of the run is not an evaluated query of tiny", "stored");
    assertThat(again.err()).contains("already stored");
    CellRecord cell =
        ResultStore.open(out).readAll().stream()
            .filter(c -> c.key().system().family().equals("external"))
            .findFirst()
            .orElseThrow();
    assertThat(cell.key().system().name()).isEqualTo("external:mine");
    assertThat(cell.key().task().benchmark()).isEqualTo("tiny-bench");
    assertThat(cell.key().task().language()).isEqualTo("en");
    // q2: d4 (docid desc among the tied d3/d4) ranks second; scores kept as given.
    assertThat(cell.queries().get(1).docs())
        .extracting(d -> d.docId() + "@" + d.rank() + "=" + d.score())
        .containsExactly("d1@1=2.0", "d4@2=1.0", "d3@3=1.0");
    assertThat(cell.metrics().get("accuracy@1")).isEqualTo(2.0 / 3);

    CliRunner report = CliRunner.run("report", out.toString());
    assertThat(report.exitCode()).as(report.err()).isZero();
    assertThat(report.out()).contains("external:mine", "bm25:k1=1.2,b=0.75");
  }

  @Test
  void mtebExportWritesResultFilesThatReadBackAsTheOfficialRanking() throws Exception {
    Path out = job();
    Path results = tmp.resolve("mteb");

    CliRunner one =
        CliRunner.run("export", "mteb", out.toString(), "--system", "bm25", "--task", "tiny");
    CliRunner all = CliRunner.run("export", "mteb", out.toString(), "--out", results.toString());

    assertThat(one.exitCode()).as(one.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(one.out());
    assertThat(json.get("task_name").asText()).isEqualTo("tiny");
    assertThat(json.get("dataset_revision").asText()).hasSize(64);
    assertThat(json.get("kg_co2_emissions").isNull()).isTrue();
    assertThat(json.get("evaluation_time").isNumber()).isTrue();
    JsonNode scores = json.get("scores").get("test").get(0);
    assertThat(scores.get("main_score").asDouble()).isEqualTo(scores.get("ndcg_at_10").asDouble());
    assertThat(scores.has("recall_at_100")).isTrue();
    assertThat(scores.get("hf_subset").asText()).isEqualTo("default");
    assertThat(scores.get("languages").get(0).asText()).isEqualTo("eng-Latn");
    assertThat(json.get("mteb_version").isNull()).isTrue();

    assertThat(all.exitCode()).as(all.err()).isZero();
    // mteb's results layout: ORG__MODEL/REVISION/TASK.json with model_meta.json beside
    assertThat(results.resolve("tenbin__bm25/no_revision_available/tiny.json")).exists();
    assertThat(results.resolve("tenbin__bm25/no_revision_available/model_meta.json")).exists();
    assertThat(results.resolve("tenbin__bm25-k1=1.2,b=0.75/no_revision_available/tiny-dev.json"))
        .exists();
    CliRunner report = CliRunner.run("report", out.toString(), "--official", results.toString());
    assertThat(report.exitCode()).as(report.err()).isZero();
    assertThat(report.out()).contains("Agreement with", "MTEB main_score, mean of 2 tasks");
    // every exported model is matched back to its row
    assertThat(report.out()).doesNotContain("not ours");
  }

  @Test
  void denseVariantsExportedToMtebTimeEachPhaseOnceAndReadBackAsThemselves() throws Exception {
    TinyJob.write(tmp);
    Path spec =
        Files.writeString(
            tmp.resolve("dense.yaml"),
            """
            task_sets: [tasks.yaml]
            retrievers:
              - {retriever: dense:tiny-dense, variants: [base, int8, binary]}
            """);
    Path out = tmp.resolve("out-dense");
    CliRunner run = TinyJob.run(tmp, spec, out, tmp.resolve("cache"), "--no-reports");
    assertThat(run.exitCode()).as(run.err()).isZero();
    Path results = tmp.resolve("mteb-dense");

    CliRunner export = CliRunner.run("export", "mteb", out.toString(), "--out", results.toString());

    assertThat(export.exitCode()).as(export.err()).isZero();
    ObjectMapper mapper = new ObjectMapper();
    List<CellRecord> cells = ResultStore.open(out).readAll();
    assertThat(cells).hasSize(3);
    for (CellRecord cell : cells) {
      java.util.Map<String, Double> t = cell.timings();
      // the documents' encode is inside the shared indexing; each variant timed its own indexing
      assertThat(t.get("document_encode_ms")).isLessThanOrEqualTo(t.get("index_ms"));
      assertThat(t.get("variant_index_ms")).isPositive();
      double phases =
          t.get("index_ms")
              + t.get("variant_index_ms")
              + t.get("query_encode_ms")
              + t.get("search_ms");
      JsonNode exported =
          mapper.readTree(
              results.resolve(dev.tenbin.eval.export.MtebExport.relativePath(cell)).toFile());
      assertThat(exported.get("evaluation_time").asDouble() * 1000)
          .isCloseTo(phases, org.assertj.core.api.Assertions.within(1e-6 * phases));
    }
    CellRecord int8 =
        cells.stream().filter(c -> c.key().variant().equals("int8")).findFirst().orElseThrow();
    assertThat(dev.tenbin.eval.export.MtebExport.relativePath(int8).toString())
        .endsWith("/experiments/variant_int8/tiny.json");

    CliRunner report =
        CliRunner.run(
            "report",
            out.toString(),
            "--official",
            results.toString(),
            "--price",
            "cpu_hour=1",
            "--format",
            "json");

    assertThat(report.exitCode()).as(report.err()).isZero();
    JsonNode board = mapper.readTree(report.out());
    JsonNode correlation = board.get("correlation");
    assertThat(correlation.get("unmatched")).isEmpty();
    // each variant is matched to its own row, named as mteb names an experiment
    assertThat(correlation.get("matches"))
        .extracting(
            m ->
                m.get("row").asText()
                    + " <- "
                    + m.get("model").asText().replaceFirst("^[^ ]+", "MODEL"))
        .containsExactlyInAnyOrder(
            "dense:tiny-dense/base/retrieval <- MODEL",
            "dense:tiny-dense/int8/retrieval <- MODEL (variant=int8)",
            "dense:tiny-dense/binary/retrieval <- MODEL (variant=binary)");
    if (correlation.get("pearson").isNumber()) {
      assertThat(correlation.get("pearson").asDouble()).isBetween(-1.0, 1.0);
    }
    // $ per 1M documents: the shared encode and ingest plus what each variant's index built
    List<Double> costs = new java.util.ArrayList<>();
    board.get("rows").forEach(row -> costs.add(row.get("cost_per_1m_documents").asDouble()));
    assertThat(costs).hasSize(3).doesNotHaveDuplicates();
  }
}
