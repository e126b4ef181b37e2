package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.StoredPositions;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.warehouse.Warehouse;
import dev.tenbin.testing.data.TinyBeir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every cell of a task with spans keeps its position analysis, and the warehouse holds it. */
class JobPositionsTest {
  @TempDir Path tmp;

  @Test
  void cellsOfEveryFamilyCarryTheirAnalysisAndTheWarehouseOneRowPerBucketAndBin() throws Exception {
    Path data = TinyJob.write(tmp);
    Files.writeString(data.resolve("qrels/spans.tsv"), SPANS);
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        name: tiny-positions
        task_sets: [tasks.yaml]
        retrievers:
          - bm25
          - {retriever: dense:tiny-dense, variants: [base, int8]}
        """);
    Path out = tmp.resolve("out");
    CliRunner run = runJob(spec, out);
    assertThat(run.exitCode()).as(run.err()).isZero();

    List<CellRecord> cells = ResultStore.open(out).readAll();
    assertThat(cells).hasSize(3);
    for (CellRecord cell : cells) {
      PositionAnalysis analysis = StoredPositions.of(cell).orElseThrow();
      assertThat(analysis.tokenizer()).isEqualTo("bge-small-en-v1.5");
      assertThat(analysis.minCount()).isEqualTo(5);
      assertThat(analysis.buckets().getFirst().queries()).isEqualTo(3);
      // q2's span is in bin 18; its nDCG@10 is the cell's own per-query value.
      double q2 =
          cell.queries().stream()
              .filter(q -> q.queryId().equals("q2"))
              .findFirst()
              .orElseThrow()
              .metrics()
              .get("ndcg@10");
      assertThat(analysis.buckets().getFirst().bins().get(18).ndcgAt10()).isEqualTo(q2);
    }
    try (var warehouse = Warehouse.openReadOnly(out.resolve("warehouse.duckdb"));
        var rows =
            warehouse
                .createStatement()
                .executeQuery(
                    "SELECT count(*), count(DISTINCT fingerprint), sum(queries) FROM positions")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getLong(1)).isEqualTo(3 * 5 * 20);
      assertThat(rows.getLong(2)).isEqualTo(3);
      assertThat(rows.getLong(3)).isEqualTo(3 * 3);
    }
    try (var warehouse = Warehouse.openReadOnly(out.resolve("warehouse.duckdb"));
        var rows =
            warehouse
                .createStatement()
                .executeQuery(
                    "SELECT count(*) FROM position_buckets WHERE max_tokens IS NULL AND min_tokens = 2048")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getLong(1)).isEqualTo(3);
    }

    CliRunner view =
        CliRunner.run("report", out.toString(), "--view", "positions", "--format", "markdown");
    assertThat(view.exitCode()).as(view.err()).isZero();
    assertThat(view.out())
        .contains("| task | system | tokens |")
        .contains("| tiny | bm25/base/retrieval | 0–512 | 3 |")
        .contains("tiny-dense/int8");
    CliRunner wrongView = CliRunner.run("report", out.toString(), "--view", "heatmap");
    assertThat(wrongView.exitCode()).isEqualTo(2);
    assertThat(wrongView.err()).contains("--view must be leaderboard or positions");
  }

  private static final String SPANS =
      "query-id\tcorpus-id\tstart\tend\nq1\td1\t15\t26\nq2\td4\t32\t36\nq3\td3\t19\t22\n";

  private CliRunner runJob(Path spec, Path out) {
    return TinyJob.run(tmp, spec, out, tmp.resolve("cache"));
  }

  @Test
  void aJobsPositionSettingsAreStoredFingerprintedAndItsReferenceCorrelatedInEveryReport()
      throws Exception {
    Path data = TinyJob.write(tmp);
    Files.writeString(data.resolve("qrels/spans.tsv"), SPANS);
    String retrievers =
        """
        task_sets: [tasks.yaml]
        retrievers:
          - bm25
          - {retriever: dense:tiny-dense, variants: [base, int8]}
        """;
    Path defaults = tmp.resolve("defaults.yaml");
    Files.writeString(defaults, "name: defaults\n" + retrievers);
    Path tuned = tmp.resolve("tuned.yaml");
    Files.writeString(
        tuned,
        "name: tuned\n" + retrievers + "positions: {min_count: 1, reference: dense:tiny-dense}\n");

    CliRunner first = runJob(defaults, tmp.resolve("defaults"));
    CliRunner second = runJob(tuned, tmp.resolve("tuned"));
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(second.exitCode()).as(second.err()).isZero();

    List<CellRecord> byDefault = ResultStore.open(tmp.resolve("defaults")).readAll();
    List<CellRecord> byTuned = ResultStore.open(tmp.resolve("tuned")).readAll();
    assertThat(byTuned).hasSize(3);
    assertThat(byTuned)
        .as("min_count decides what a cell stores, so it is part of the fingerprint")
        .extracting(CellRecord::fingerprint)
        .doesNotContainAnyElementsOf(byDefault.stream().map(CellRecord::fingerprint).toList());
    for (CellRecord cell : byTuned) {
      PositionAnalysis analysis = StoredPositions.of(cell).orElseThrow();
      assertThat(analysis.minCount()).isEqualTo(1);
      assertThat(analysis.reference()).as("the reference is not stored in a cell").isNull();
      assertThat(analysis.buckets().getFirst().psi())
          .as("three bins of one query each count with min_count 1")
          .isNotNull();
    }

    CliRunner view =
        CliRunner.run(
            "report", tmp.resolve("tuned").toString(), "--view", "positions", "--format", "json");
    assertThat(view.exitCode()).as(view.err()).isZero();
    var rows = ResultStore.JSON.readTree(view.out());
    assertThat(rows).hasSize(3);
    rows.forEach(
        row ->
            assertThat(row.path("positions").path("reference").asText())
                .as("job.yaml's positions.reference")
                .isEqualTo("dense:tiny-dense"));
    CliRunner overridden =
        CliRunner.run(
            "report",
            tmp.resolve("tuned").toString(),
            "--view",
            "positions",
            "--format",
            "json",
            "--positions-reference",
            "bm25");
    assertThat(
            ResultStore.JSON
                .readTree(overridden.out())
                .get(0)
                .path("positions")
                .path("reference")
                .asText())
        .isEqualTo("bm25");

    try (var warehouse = Warehouse.openReadOnly(tmp.resolve("tuned/warehouse.duckdb"));
        var result =
            warehouse
                .createStatement()
                .executeQuery("SELECT DISTINCT reference FROM position_buckets")) {
      assertThat(result.next()).isTrue();
      assertThat(result.getString(1)).isEqualTo("dense:tiny-dense");
      assertThat(result.next()).isFalse();
    }
    String html = Files.readString(tmp.resolve("tuned/leaderboard.html"));
    assertThat(html)
        .contains("<table id=\"positions\">", "id=\"position-profiles\"", "id=\"positions-data\"")
        .contains("with dense:tiny-dense&#39;s");
    assertThat(html.split("<figure class=\"heatmap\"", -1)).hasSize(4);
  }

  @Test
  void aTaskBorrowsTheDocumentLengthsOfItsLengthReference() throws Exception {
    Path data = TinyJob.write(tmp);
    Files.writeString(data.resolve("qrels/spans.tsv"), SPANS);
    Path longer = TinyBeir.write(tmp.resolve("data/tiny-long"));
    String corpus = Files.readString(longer.resolve("corpus.jsonl"));
    Files.writeString(
        longer.resolve("corpus.jsonl"),
        corpus.replace(
            "the train leaves the station at noon",
            "the train leaves the station at noon" + " and the platform is crowded".repeat(150)));
    Files.writeString(
        tmp.resolve("tasks.yaml"),
        """
        name: tiny-bench
        tasks:
          - name: tiny
            language: en
            source: {path: data/tiny}
            length_reference: tiny-long
          - name: tiny-long
            language: en
            source: {path: data/tiny-long}
        """);
    Path spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        name: borrowed
        task_sets: [tasks.yaml]
        tasks: [tiny]
        retrievers: [bm25]
        """);

    CliRunner run = runJob(spec, tmp.resolve("out"));
    assertThat(run.exitCode()).as(run.err()).isZero();

    CellRecord cell = ResultStore.open(tmp.resolve("out")).readAll().getFirst();
    assertThat(cell.key().task().task()).isEqualTo("tiny");
    PositionAnalysis analysis = StoredPositions.of(cell).orElseThrow();
    assertThat(analysis.lengthReference()).isEqualTo("tiny-long");
    assertThat(analysis.buckets().get(0).queries())
        .as("q1 and q3: their documents are short in tiny-long too")
        .isEqualTo(2);
    assertThat(analysis.buckets().get(1).queries())
        .as("q2's document d4 is 900+ tokens long in tiny-long, though short in tiny")
        .isEqualTo(1);
  }
}
