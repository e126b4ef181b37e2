package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.TenbinVersion;
import dev.tenbin.eval.dataset.BeirDataset;
import dev.tenbin.eval.metrics.Qrels;
import dev.tenbin.eval.store.CellKey;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Cells stored before the family registry must keep their fingerprints, or a resumed job would
 * recompute them: each family's cell identity is restated here field by field, as the planner wrote
 * it before, and compared with what the families plan now.
 */
class StoredCellCompatibilityTest {
  private static final String SPEC =
      """
      name: j
      task_sets: [tasks.yaml]
      retrievers:
        - bm25
        - {retriever: dense:m, variants: [int8]}
        - light:m
        - sparse-bm25:s
        - multivector:c
      rerankers: [cross/enc]
      candidates: {dense_model: m, sets: [hybrid, bm25]}
      similarity: best
      top_k: 50
      """;

  private static final Map<String, String> ENCODER = Map.of("id", "m", "revision", "r1");
  private static final Map<String, String> RERANKER = Map.of("id", "cross/enc", "head", "H");

  private final Map<String, PlannedCell> cells = new LinkedHashMap<>();
  private final Map<String, List<String>> artifacts = new LinkedHashMap<>();

  StoredCellCompatibilityTest() {
    BeirDataset data =
        new BeirDataset(
            "t",
            Path.of("t"),
            List.of(),
            Map.of(),
            Qrels.of(Map.of()),
            dev.tenbin.eval.dataset.SpanQrels.none(),
            List.of(),
            List.of());
    JobTask task =
        new JobTask("bench", "t", "t", "en", "", data, "sha-1", Map.of("path", "/somewhere"));
    JobPlanner planner =
        new JobPlanner(
            JobSpec.parse(SPEC, Path.of("/jobs/job.yaml")),
            id ->
                new ModelFacts(
                    Map.of("id", id, "revision", "r1"),
                    Map.of("model_revision", "r1"),
                    384,
                    33_000_000,
                    List.of()),
            id -> new ModelFacts(RERANKER, Map.of("model_revision", "r2"), 0, 0, List.of()));
    for (Work work : planner.plan(List.of(task))) {
      work.cells()
          .forEach(
              cell ->
                  cells.put(
                      cell.key().system() + "/" + cell.key().variant() + "/" + cell.key().mode(),
                      cell));
      artifacts.put(work.label(), work.artifacts());
    }
  }

  @Test
  void bm25KeepsItsIdentity() {
    assertFingerprint(
        "bm25/base/retrieval",
        Map.of("lucene", TenbinVersion.lucene(), "bm25", "k1=0.9 b=0.4 title+text"));
  }

  @Test
  void modelFamiliesKeepTheirIdentity() {
    assertFingerprint("dense:m/int8/retrieval", model(ENCODER, "int8"));
    assertFingerprint("light:m/base/retrieval", model(ENCODER, "base"));
    assertFingerprint("light-sparse:m/base/retrieval", model(ENCODER, "base"));
    Map<String, Object> hybrid = model(ENCODER, "base");
    hybrid.put("hybrid", "min-max normalized interpolation, dense weight 0.5");
    assertFingerprint("light-hybrid:m/base/retrieval", hybrid);
    assertFingerprint(
        "sparse-bm25:s/base/retrieval", model(Map.of("id", "s", "revision", "r1"), "base"));
    assertFingerprint(
        "multivector:c/base/retrieval", model(Map.of("id", "c", "revision", "r1"), "base"));
  }

  @Test
  void candidateSetsAndRerankersKeepTheirIdentity() {
    Map<String, Object> bm25Set = new LinkedHashMap<>();
    bm25Set.put("artifact", "candidate_set");
    bm25Set.put("kind", "bm25");
    bm25Set.put("dataset_sha", "sha-1");
    bm25Set.put("language", "en");
    bm25Set.put("lucene", TenbinVersion.lucene());
    bm25Set.put("recipe", "bm25 top-500 + dense top-500, RRF k=100, top-100, safeguard at 101");
    Map<String, Object> hybridSet = new LinkedHashMap<>(bm25Set);
    hybridSet.put("kind", "hybrid");
    hybridSet.put("dense_model", ENCODER);
    hybridSet.put("onnxruntime", TenbinVersion.onnxRuntime());
    String bm25Fingerprint = CellFingerprint.of(bm25Set);
    assertThat(artifacts.get("candidate sets on bench/t"))
        .containsExactly(CellFingerprint.of(hybridSet), bm25Fingerprint);

    for (String mode : List.of("rerank", "rerank_without_safeguard")) {
      Map<String, Object> rerank = model(RERANKER, "candidates_bm25");
      rerank.put("candidate_set", bm25Fingerprint);
      rerank.put("reranker", "cross/enc");
      assertFingerprint("rerank-cross:cross/enc/candidates_bm25/" + mode, rerank);
    }
  }

  private static Map<String, Object> model(Map<String, String> identity, String variant) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("model", identity);
    fields.put("onnxruntime", TenbinVersion.onnxRuntime());
    fields.put("tokenizers", TenbinVersion.tokenizers());
    fields.put("similarity", "best");
    fields.put("variant", variant);
    return fields;
  }

  private void assertFingerprint(String cell, Map<String, Object> identity) {
    PlannedCell planned = cells.get(cell);
    assertThat(planned).as(cell).isNotNull();
    CellKey key = planned.key();
    Map<String, Object> fields = new LinkedHashMap<>(identity);
    fields.put("key", key);
    fields.put("dataset_sha", "sha-1");
    fields.put("top_k", 50);
    assertThat(planned.fingerprint()).as(cell).isEqualTo(CellFingerprint.of(fields));
  }
}
