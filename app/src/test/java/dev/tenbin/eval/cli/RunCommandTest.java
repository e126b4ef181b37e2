package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenbin.eval.result.ConcurrentLatency;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.QueryBootstrap;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.testing.models.TinyModels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tenbin run}: a job over every family on the embedded services, stored cell by cell and
 * resumable.
 */
class RunCommandTest {
  @TempDir Path tmp;
  private Path spec;
  private Path out;
  private Path models;

  @BeforeEach
  void writeJob() throws Exception {
    Path data = TinyJob.write(tmp);
    models = TinyJob.models(tmp);
    spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        name: tiny-job
        task_sets: [tasks.yaml]
        retrievers:
          - bm25
          - {retriever: dense:tiny-dense, variants: [base, int8]}
          - light:tiny-dense
        rerankers: [dense:tiny-dense]
        candidates: {dense_model: tiny-dense}
        """);
    out = tmp.resolve("out");
    assertThat(data).isDirectory();
  }

  private CliRunner run() {
    return TinyJob.run(tmp, spec, out, tmp.resolve("cache"));
  }

  @Test
  void aJobStoresOneCellPerSystemVariantAndModeAndWritesLeaderboardsAndWarehouse()
      throws Exception {
    CliRunner first = run();
    assertThat(first.exitCode()).as(first.err()).isZero();
    List<CellRecord> cells = ResultStore.existing(out, "--out").readAll();
    assertThat(cells)
        .extracting(c -> c.key().system().name() + "/" + c.key().variant() + "/" + c.key().mode())
        .containsExactlyInAnyOrder(
            "bm25/base/retrieval",
            "dense:tiny-dense/base/retrieval",
            "dense:tiny-dense/int8/retrieval",
            "light:tiny-dense/base/retrieval",
            "light-sparse:tiny-dense/base/retrieval",
            "light-hybrid:tiny-dense/base/retrieval",
            "rerank-dense:tiny-dense/candidates_hybrid/rerank",
            "rerank-dense:tiny-dense/candidates_hybrid/rerank_without_safeguard");
    CellRecord bm25 =
        cells.stream()
            .filter(c -> c.key().system().family().equals("bm25"))
            .findFirst()
            .orElseThrow();
    assertThat(bm25.metrics().get("accuracy@1")).isEqualTo(1.0);
    assertThat(bm25.queries()).hasSize(3);
    assertThat(bm25.queries().getFirst().docs().getFirst().rank()).isEqualTo(1);
    assertThat(bm25.versions()).containsKeys("dataset_sha", "lucene_version", "tenbin_version");
    assertThat(bm25.tieAware()).containsKey("ndcg@10");
    assertThat(bm25.metrics()).containsKey("precision@10");
    // a new cell stores its query-bootstrap intervals, and reading them back gives the intervals
    // computed from its stored per-query values
    assertThat(bm25.diagnostics()).containsKey(QueryBootstrap.KEY);
    assertThat(QueryBootstrap.of(bm25))
        .containsKeys("ndcg@10", "precision@10")
        .isEqualTo(
            QueryBootstrap.intervals(bm25.queries().stream().map(q -> q.metrics()).toList()));
    CellRecord int8 =
        cells.stream().filter(c -> c.key().variant().equals("int8")).findFirst().orElseThrow();
    assertThat(int8.versions())
        .containsKeys("model_revision", "onnxruntime_provider", "model_dtype");
    assertThat(int8.diagnostics())
        .containsKeys(
            "int8_query_clip_rate",
            "bytes_per_vector",
            "stored_bytes_per_vector",
            "scanned_bytes_per_vector",
            "int8_calibration");
    // The calibration outlives the run's temporary collection: stored with the cell.
    @SuppressWarnings("unchecked")
    Map<String, Object> calibration =
        (Map<String, Object>) int8.diagnostics().get("int8_calibration");
    int dimension = int8.facts().get("dimension").intValue();
    assertThat(calibration.get("dimensions")).isEqualTo(dimension);
    assertThat((List<?>) calibration.get("min")).hasSize(dimension);
    assertThat((List<?>) calibration.get("max")).hasSize(dimension);
    assertThat(calibration)
        .containsKeys(
            "sha256",
            "document_clip_rate",
            "document_saturation_rate",
            "query_clip_rate",
            "query_saturation_rate");
    assertThat(int8.facts())
        .containsEntry("stored_bytes_per_vector", (double) dimension)
        .containsEntry("scanned_bytes_per_vector", (double) dimension);
    assertThat(int8.facts())
        .containsKeys("bytes_per_vector", "dimension", "avg_query_tokens", "avg_document_tokens");
    assertThat(int8.timings()).containsKeys("per_query_encode_us", "per_query_search_us");
    assertThat(int8.timings().get("query_encode_latency_us")).isPositive();
    assertThat(int8.timings().get("search_latency_us")).isPositive();
    assertThat(bm25.timings().get("search_latency_us")).isPositive();
    CellRecord light =
        cells.stream()
            .filter(c -> c.key().system().family().equals("light"))
            .findFirst()
            .orElseThrow();
    assertThat(light.timings().get("query_encode_latency_us")).isPositive();
    for (String family : List.of("light-sparse", "light-hybrid")) {
      CellRecord cell =
          cells.stream()
              .filter(c -> c.key().system().family().equals(family))
              .findFirst()
              .orElseThrow();
      assertThat(cell.timings().get("search_latency_us")).as(family).isPositive();
    }
    // Latency with several queries in flight: all 3 queries of the task; LightRetriever's hybrid
    // runs a query through both sides, and adds up their figures.
    ConcurrentLatency lightLatency = ConcurrentLatency.fromDiagnostics(light.diagnostics());
    ConcurrentLatency sparseLatency =
        ConcurrentLatency.fromDiagnostics(
            cells.stream()
                .filter(c -> c.key().system().family().equals("light-sparse"))
                .findFirst()
                .orElseThrow()
                .diagnostics());
    assertThat(lightLatency.inFlight()).isEqualTo(3);
    assertThat(sparseLatency.inFlight()).isEqualTo(3);
    assertThat(
            ConcurrentLatency.fromDiagnostics(
                cells.stream()
                    .filter(c -> c.key().system().family().equals("light-hybrid"))
                    .findFirst()
                    .orElseThrow()
                    .diagnostics()))
        .isEqualTo(ConcurrentLatency.serial(List.of(lightLatency, sparseLatency)));
    assertThat(ConcurrentLatency.fromDiagnostics(int8.diagnostics()).queriesPerSecond())
        .isPositive();
    CellRecord rerank =
        cells.stream().filter(c -> c.key().mode() == RankingMode.RERANK).findFirst().orElseThrow();
    assertThat(rerank.diagnostics())
        .containsKeys("query_coverage", "relevant_document_coverage", "candidate_origin");
    assertThat(int8.versions())
        .containsKeys("probe_set", "probe_sha256", "probe_head", "model_sha256")
        .containsEntry("onnxruntime_device", "cpu/" + System.getProperty("os.arch"));
    String probes = int8.versions().get("probe_sha256");
    for (CellRecord cell : cells) {
      if (!cell.key().system().family().equals("bm25")) {
        assertThat(cell.versions())
            .as("every cell of tiny-dense stores the probes encoded once for the job")
            .containsEntry("probe_sha256", probes)
            .containsEntry("model_sha256", int8.versions().get("model_sha256"));
      }
    }
    try (var warehouse =
            dev.tenbin.eval.warehouse.Warehouse.openReadOnly(out.resolve("warehouse.duckdb"));
        var rows =
            warehouse
                .createStatement()
                .executeQuery(
                    "SELECT count(*), count(DISTINCT value) FROM versions WHERE name = 'probe_sha256'")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getLong(1)).as("cells with probes in the warehouse").isEqualTo(7);
      assertThat(rows.getLong(2)).isEqualTo(1);
    }
    assertThat(out.resolve("leaderboard.html")).isNotEmptyFile();
    assertThat(out.resolve("leaderboard.md")).content().contains("bm25");
    assertThat(out.resolve("warehouse.duckdb")).isNotEmptyFile();
    assertThat(first.out()).contains("bm25");
  }

  @Test
  void aRerunComputesNothingAndAResumedJobComputesExactlyTheMissingCellsWithIdenticalRankings()
      throws Exception {
    assertThat(run().exitCode()).isZero();
    Map<String, byte[]> before = cellFiles();
    assertThat(before).as("a header and a Parquet file per cell").hasSize(16);

    CliRunner again = run();
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.err()).contains("8 already stored, 0 computed");
    Map<String, byte[]> unchanged = cellFiles();
    before.forEach((name, bytes) -> assertThat(unchanged.get(name)).as(name).isEqualTo(bytes));

    // As after a kill -9 mid-cell: one cell never renamed into place, a torn temporary file left
    // behind.
    String lost =
        before.keySet().stream()
            .filter(name -> !name.startsWith("."))
            .sorted()
            .findFirst()
            .orElseThrow();
    CellRecord original =
        ResultStore.existing(out, "--out").read(lost.substring(0, lost.indexOf('.'))).orElseThrow();
    assertThat(lost).endsWith(".cell.json");
    Files.delete(out.resolve("cells").resolve(lost));
    Files.writeString(out.resolve("cells").resolve("." + lost + ".1234.tmp"), "{\"format_ver");

    CliRunner resumed = run();
    assertThat(resumed.exitCode()).as(resumed.err()).isZero();
    assertThat(resumed.err()).contains("7 already stored, 1 computed");
    assertThat(ResultStore.existing(out, "--out").readAll()).hasSize(8);
    CellRecord recomputed =
        ResultStore.existing(out, "--out").read(original.fingerprint()).orElseThrow();
    assertThat(recomputed.queries()).isEqualTo(original.queries());
    assertThat(recomputed.metrics()).isEqualTo(original.metrics());

    Map<String, Integer> stored = new HashMap<>();
    for (String line : Files.readAllLines(out.resolve("events.jsonl"), StandardCharsets.UTF_8)) {
      JsonNode event = ResultStore.JSON.readTree(line);
      if (event.get("event").asText().equals("cell_stored")) {
        stored.merge(event.get("detail").asText().split(" ")[0], 1, Integer::sum);
      }
    }
    assertThat(stored).hasSize(8);
    stored.forEach(
        (fingerprint, times) ->
            assertThat(times)
                .as(fingerprint)
                .isEqualTo(fingerprint.equals(original.fingerprint()) ? 2 : 1));
  }

  @Test
  void learnedSparseWithAPruningGridLateInteractionAndACrossEncoderRunAsCellsToo()
      throws Exception {
    TinyModels.sparse(models, "tiny-splade");
    TinyModels.multiVector(models, "tiny-colbert");
    TinyModels.crossEncoder(models, "tiny-ce");
    Files.writeString(
        spec,
        """
        task_sets: [tasks.yaml]
        retrievers:
          - {retriever: sparse:tiny-splade, variants: [base, sparse_q8_d64]}
          - multivector:tiny-colbert
        rerankers: [tiny-ce]
        candidates: {dense_model: tiny-dense, sets: [hybrid, bm25]}
        """);
    CliRunner result = run();
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(ResultStore.existing(out, "--out").readAll())
        .extracting(c -> c.key().system().name() + "/" + c.key().variant() + "/" + c.key().mode())
        .containsExactlyInAnyOrder(
            "sparse:tiny-splade/base/retrieval",
            "sparse:tiny-splade/sparse_q8_d64/retrieval",
            "multivector:tiny-colbert/base/retrieval",
            "rerank-cross:tiny-ce/candidates_hybrid/rerank",
            "rerank-cross:tiny-ce/candidates_hybrid/rerank_without_safeguard",
            "rerank-cross:tiny-ce/candidates_bm25/rerank",
            "rerank-cross:tiny-ce/candidates_bm25/rerank_without_safeguard");
    CellRecord cross =
        ResultStore.existing(out, "--out").readAll().stream()
            .filter(c -> c.key().system().family().equals("rerank-cross"))
            .findFirst()
            .orElseThrow();
    assertThat(cross.versions())
        .containsEntry("model_revision", "r1")
        .containsEntry("onnxruntime_provider", "CPU")
        .containsKeys("probe_sha256", "model_sha256");
    CellRecord maxSim =
        ResultStore.existing(out, "--out").readAll().stream()
            .filter(c -> c.key().system().family().equals("multivector"))
            .findFirst()
            .orElseThrow();
    assertThat(maxSim.timings().get("search_latency_us")).isPositive();
    assertThat(maxSim.timings().get("query_encode_latency_us")).isPositive();
  }

  @Test
  void aBadSpecIsAClearErrorNamingTheField() throws Exception {
    Files.writeString(
        spec,
        "name: x\ntask_sets: [tasks.yaml]\nretrievers: [dense:tiny-dense]\nsimilarity: manhattan\n");
    CliRunner result = run();
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err())
        .contains("similarity")
        .contains("cosine, dot or best")
        .doesNotContain("Exception");
    Files.writeString(
        spec,
        "name: x\ntask_sets: [tasks.yaml]\nretrievers: [{retriever: dense:tiny-dense, variants: [int9]}]\n");
    assertThat(run().err()).contains("retrievers[0].variants[0]");
    Files.writeString(spec, "name: x\ntask_sets: [missing.yaml]\nretrievers: [bm25]\n");
    CliRunner missing = run();
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("missing.yaml");
  }

  @Test
  void cudaForTheEmbeddedEncoderOnABuildWithoutItIsRefusedBeforeAnyWorkWithWhatToDo() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        dev.tenbin.model.onnx.OnnxEnvironment.cudaAvailable(),
        "this build carries the CUDA provider");
    CliRunner result =
        CliRunner.run(
            "run",
            spec.toString(),
            "--out",
            out.toString(),
            "--models-dir",
            models.toString(),
            "--cache-dir",
            tmp.resolve("cache").toString(),
            "--execution-provider",
            "cuda",
            "--device-id",
            "1",
            "--gpu-mem-limit",
            "4g");
    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("-Pgpu").contains("docs/gpu.md").doesNotContain("Exception");
    assertThat(out.resolve("cells")).doesNotExist();
  }

  private Map<String, byte[]> cellFiles() throws Exception {
    Map<String, byte[]> files = new HashMap<>();
    try (Stream<Path> list = Files.list(out.resolve("cells"))) {
      for (Path file : list.toList()) {
        files.put(file.getFileName().toString(), Files.readAllBytes(file));
      }
    }
    return files;
  }
}
