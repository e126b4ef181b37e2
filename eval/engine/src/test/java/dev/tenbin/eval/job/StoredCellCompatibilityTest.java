package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.plan.CellFingerprint;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.ModelFacts;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.Work;
import dev.tenbin.eval.provenance.TenbinVersion;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.metrics.Qrels;
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
            dev.tenbin.scoring.beir.Corpus.of(List.of()),
            Map.of(),
            Qrels.of(Map.of()),
            dev.tenbin.scoring.beir.SpanQrels.none(),
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
                      cell.key().system().name()
                          + "/"
                          + cell.key().variant()
                          + "/"
                          + cell.key().mode(),
                      cell));
      artifacts.put(work.label(), work.artifacts());
    }
  }

  /**
   * The fingerprints themselves, as this build plans them: a change of the key's or identity's
   * serialization that both sides above would share still fails here.
   */
  @Test
  void plannedFingerprintsAreUnchanged() {
    Map<String, String> planned = new java.util.TreeMap<>();
    cells.forEach((cell, plannedCell) -> planned.put(cell, plannedCell.fingerprint()));
    artifacts.forEach(
        (work, sets) -> {
          if (!sets.isEmpty()) {
            planned.put(work, String.join(",", sets));
          }
        });
    assertThat(planned).isEqualTo(GOLDEN);
  }

  private static final Map<String, String> GOLDEN =
      Map.ofEntries(
          Map.entry(
              "bm25/base/retrieval",
              "a872c6bc6c79d1187e124f10008c50c4a6aee3213067eaffc3197949732d50a6"),
          Map.entry(
              "candidate sets on bench/t",
              "78345b841e9c100db40603b9b13217094224d535126fa35726071e2d4d735e5e,8e9b81594e17036c1387e297423f6b3fa9ed136062f0a70c5af3126fdbca262a"),
          Map.entry(
              "dense:m/int8/retrieval",
              "eadd4c971116e6c279079ef56c4e3bc323422fc25085e589556418d44a75f9fa"),
          Map.entry(
              "light-hybrid:m/base/retrieval",
              "49d8e7c37e13825f1109093bdb435a01931cfec134f726266fec30fac2952089"),
          Map.entry(
              "light-sparse:m/base/retrieval",
              "51c6c3b719b99be05abaacf26a91eaffcf2e94ba0ea5a809167646b47f244787"),
          Map.entry(
              "light:m/base/retrieval",
              "9174cdcbd809034d8eada7b690132161deb6e2feb515821d1e4dc4809b92f5b4"),
          Map.entry(
              "multivector:c/base/retrieval",
              "5adcb68bf923507ff0862ce8d95f199096585315a484b0556d3409fae7992599"),
          Map.entry(
              "rerank cross/enc over bm25 on bench/t",
              "8e9b81594e17036c1387e297423f6b3fa9ed136062f0a70c5af3126fdbca262a"),
          Map.entry(
              "rerank cross/enc over hybrid on bench/t",
              "78345b841e9c100db40603b9b13217094224d535126fa35726071e2d4d735e5e"),
          Map.entry(
              "rerank-cross:cross/enc/candidates_bm25/rerank",
              "072e0fe1533f3464aa9d3c1775e32c895ca178466747d5916e40867906aee375"),
          Map.entry(
              "rerank-cross:cross/enc/candidates_bm25/rerank_without_safeguard",
              "210b9186b075481faf57c030db52fe5cca0d4e0bdc2c55b7f483714803f64f47"),
          Map.entry(
              "rerank-cross:cross/enc/candidates_hybrid/rerank",
              "331705c47dff6a118c850e0e38f964ed329284cc16ee27ffb553b972caf3385c"),
          Map.entry(
              "rerank-cross:cross/enc/candidates_hybrid/rerank_without_safeguard",
              "f9ab377884e35cdfd20fdeef3a93d118d9eb320ac8bf77015f4e4dc17fc47b57"),
          Map.entry(
              "sparse-bm25:s/base/retrieval",
              "24ab7469a7ab53a08fbe1289ae158370a42333593a644003fb9c7587e42a125c"));

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
    fields.put("key", key.identityFields());
    fields.put("dataset_sha", "sha-1");
    fields.put("top_k", 50);
    assertThat(planned.fingerprint()).as(cell).isEqualTo(CellFingerprint.of(fields));
  }
}
