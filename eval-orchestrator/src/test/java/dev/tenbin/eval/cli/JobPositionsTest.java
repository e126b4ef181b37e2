package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.StoredPositions;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.eval.warehouse.Warehouse;
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
    Files.writeString(
        data.resolve("qrels/spans.tsv"),
        "query-id\tcorpus-id\tstart\tend\nq1\td1\t15\t26\nq2\td4\t32\t36\nq3\td3\t19\t22\n");
    Path models = TinyJob.models(tmp);
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
    CliRunner run =
        CliRunner.run(
            "run",
            spec.toString(),
            "--out",
            out.toString(),
            "--models-dir",
            models.toString(),
            "--cache-dir",
            tmp.resolve("cache").toString());
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
}
