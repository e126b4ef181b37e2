package dev.tenbin.eval.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.ResultStore;
import dev.tenbin.testing.models.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm rerun (every cell stored) plans from the models' remembered identities: it neither loads a
 * model (an encoder's or a cross-encoder's) nor encodes or scores the probe texts, so it does not
 * depend on the model's files being readable. A run with a cell to compute still probes the model,
 * and stores the probe checksum.
 */
class WarmRerunTest {
  @TempDir Path tmp;
  private Path spec;
  private Path out;

  @BeforeEach
  void job() throws Exception {
    TinyJob.write(tmp);
    settleModels();
    spec = tmp.resolve("job.yaml");
    Files.writeString(
        spec,
        """
        name: warm
        task_sets: [tasks.yaml]
        retrievers:
          - bm25
          - {retriever: dense:tiny-dense, variants: [base]}
        """);
    out = tmp.resolve("out");
  }

  /** Models written a while ago: a service trusts a file's stamp only once it has settled. */
  private void settleModels() throws Exception {
    FileTime hourAgo = FileTime.from(java.time.Instant.now().minusSeconds(3600));
    try (var files = Files.walk(TinyJob.models(tmp))) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Files.setLastModifiedTime(file, hourAgo);
      }
    }
  }

  private CliRunner run() {
    return TinyJob.run(tmp, spec, out, tmp.resolve("cache"));
  }

  /**
   * Overwrites the model's graph with bytes no ONNX Runtime can load, keeping its size and
   * modification time (so its stamp, and the remembered identity, still hold).
   */
  private void spoilGraphKeepingItsStamp(String model) throws Exception {
    Path graph;
    try (var files = Files.list(TinyJob.models(tmp).resolve(model))) {
      graph = files.filter(f -> f.toString().endsWith(".onnx")).findFirst().orElseThrow();
    }
    FileTime time = Files.getLastModifiedTime(graph);
    byte[] garbage = new byte[(int) Files.size(graph)];
    Arrays.fill(garbage, (byte) 0x5A);
    Files.write(graph, garbage);
    Files.setLastModifiedTime(graph, time);
  }

  @Test
  void aWarmRerunNeitherLoadsNorProbesAModel() throws Exception {
    CliRunner cold = run();
    assertThat(cold.exitCode()).as(cold.err()).isZero();
    List<CellRecord> stored = ResultStore.existing(out, "--out").readAll();
    CellRecord dense =
        stored.stream()
            .filter(c -> c.key().system().name().equals("dense:tiny-dense"))
            .findFirst()
            .orElseThrow();
    assertThat(dense.versions()).containsKeys("probe_set", "probe_sha256", "model_sha256");

    spoilGraphKeepingItsStamp("tiny-dense");
    CliRunner warm = run();

    assertThat(warm.exitCode()).as(warm.err()).isZero();
    assertThat(warm.err()).contains("2 already stored, 0 computed");
    assertThat(warm.err())
        .as("the warehouse of the same cell files is kept")
        .contains("(2 cells, unchanged: built from these very cell files)");
    assertThat(ResultStore.existing(out, "--out").readAll())
        .as("the same cells, untouched")
        .containsExactlyInAnyOrderElementsOf(stored);
    assertThat(Files.readString(out.resolve("leaderboard.md"))).contains("dense:tiny-dense");
  }

  @Test
  void aWarmRerunNeitherLoadsNorProbesACrossEncoder() throws Exception {
    TinyModels.crossEncoder(TinyJob.models(tmp), "tiny-ce");
    settleModels();
    Files.writeString(
        spec,
        """
        name: warm
        task_sets: [tasks.yaml]
        retrievers: [bm25]
        rerankers: [tiny-ce]
        candidates: {dense_model: tiny-dense, sets: [bm25]}
        """);
    CliRunner cold = run();
    assertThat(cold.exitCode()).as(cold.err()).isZero();
    List<CellRecord> stored = ResultStore.existing(out, "--out").readAll();
    assertThat(stored)
        .filteredOn(c -> c.key().system().family().equals("rerank-cross"))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.versions()).containsKeys("probe_sha256", "model_sha256"));

    spoilGraphKeepingItsStamp("tiny-ce");
    CliRunner warm = run();

    assertThat(warm.exitCode()).as(warm.err()).isZero();
    assertThat(warm.err()).contains(stored.size() + " already stored, 0 computed");
    assertThat(ResultStore.existing(out, "--out").readAll())
        .as("the same cells, untouched")
        .containsExactlyInAnyOrderElementsOf(stored);
  }

  @Test
  void aRunWithACellToComputeStillProbesTheModel() throws Exception {
    assertThat(run().exitCode()).isZero();
    Files.writeString(
        spec,
        Files.readString(spec).replace("variants: [base]", "variants: [base, int8]"),
        java.nio.charset.StandardCharsets.UTF_8);
    spoilGraphKeepingItsStamp("tiny-dense");

    CliRunner partial = run();

    // The new int8 cell needs the model: probing it (before any cell) fails on the spoiled graph.
    assertThat(partial.exitCode()).isNotZero();
    assertThat(partial.err()).contains("cannot load model tiny-dense").doesNotContain("INTERNAL");
  }
}
