package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.JobTask;
import dev.tenbin.eval.plan.PlannedCell;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a job splits into cells, and what a cell's fingerprint does and does not depend on. */
class JobPlannerTest {
  private static final String SPEC =
      """
      name: j
      task_sets: [tasks.yaml]
      retrievers:
        - bm25
        - dense:m
        - light:m
      rerankers: [dense:m]
      candidates: {dense_model: m}
      """;

  private static JobTask task(String sha) {
    return PlanFixtures.emptyTask(sha, Map.of("path", "/somewhere/" + sha));
  }

  private static Map<String, String> fingerprints(String spec, String sha, String revision) {
    Map<String, String> out = new HashMap<>();
    for (PlannedCell cell :
        PlanFixtures.cells(
            PlanFixtures.plan(
                spec,
                PlanFixtures.models(revision, List.of()),
                PlanFixtures.noModels(),
                task(sha)))) {
      out.put(
          cell.key().system().name() + "/" + cell.key().variant() + "/" + cell.key().mode(),
          cell.fingerprint());
    }
    return out;
  }

  @Test
  void everyFamilyVariantAndModeIsOneCellAndTheSameInputsGiveTheSameFingerprints() {
    Map<String, String> cells = fingerprints(SPEC, "sha-1", "r1");
    assertThat(cells.keySet())
        .containsExactlyInAnyOrder(
            "bm25/base/retrieval",
            "dense:m/base/retrieval",
            "dense:m/int8/retrieval",
            "dense:m/binary/retrieval",
            "dense:m/int8_rescore/retrieval",
            "dense:m/binary_rescore/retrieval",
            "light:m/base/retrieval",
            "light-sparse:m/base/retrieval",
            "light-hybrid:m/base/retrieval",
            "rerank-dense:m/candidates_hybrid/rerank",
            "rerank-dense:m/candidates_hybrid/rerank_without_safeguard");
    assertThat(cells.values()).doesNotHaveDuplicates().allMatch(fp -> fp.matches("[0-9a-f]{64}"));
    assertThat(fingerprints(SPEC, "sha-1", "r1")).isEqualTo(cells);
  }

  @Test
  void aNewModelRevisionInvalidatesThatModelsCellsOnlyAndNewDataInvalidatesEverything() {
    Map<String, String> before = fingerprints(SPEC, "sha-1", "r1");
    Map<String, String> newRevision = fingerprints(SPEC, "sha-1", "r2");
    assertThat(newRevision.get("bm25/base/retrieval")).isEqualTo(before.get("bm25/base/retrieval"));
    before.keySet().stream()
        .filter(k -> !k.startsWith("bm25"))
        .forEach(k -> assertThat(newRevision.get(k)).as(k).isNotEqualTo(before.get(k)));
    Map<String, String> newData = fingerprints(SPEC, "sha-2", "r1");
    before.forEach((k, fp) -> assertThat(newData.get(k)).as(k).isNotEqualTo(fp));
  }

  @Test
  void theDepthAndSimilarityArePartOfTheIdentityButAddingARetrieverChangesNoExistingCell() {
    Map<String, String> before = fingerprints(SPEC, "sha-1", "r1");
    assertThat(fingerprints(SPEC + "top_k: 50\n", "sha-1", "r1").get("bm25/base/retrieval"))
        .isNotEqualTo(before.get("bm25/base/retrieval"));
    assertThat(
            fingerprints(SPEC + "similarity: dot\n", "sha-1", "r1").get("dense:m/base/retrieval"))
        .isNotEqualTo(before.get("dense:m/base/retrieval"));
    Map<String, String> more =
        fingerprints(SPEC.replace("  - bm25\n", "  - bm25\n  - dense:other\n"), "sha-1", "r1");
    before.forEach((k, fp) -> assertThat(more.get(k)).as(k).isEqualTo(fp));
  }

  @Test
  void automaticDenseVariantsAddTheMatryoshkaTruncationsTheModelWasTrainedFor() {
    JobPlanner planner =
        new JobPlanner(
            JobSpec.parse("task_sets: [t.yaml]\nretrievers: [dense:m]\n", Path.of("/j.yaml")),
            PlanFixtures.models("r", List.of(256, 384)),
            id -> null);
    List<String> variants =
        planner.plan(List.of(task("s"))).getFirst().cells().stream()
            .map(c -> c.key().variant())
            .toList();
    assertThat(variants)
        .containsExactly(
            "base",
            "int8",
            "binary",
            "int8_rescore",
            "binary_rescore",
            "truncate256",
            "truncate256_binary_rescore");
    PlannedCell truncated = planner.plan(List.of(task("s"))).getFirst().cells().get(5);
    assertThat(truncated.facts().get("dimension")).isEqualTo(256.0);
  }

  @Test
  void aModelNotTrainedForTruncationGetsNoAutomaticTruncationButAnExplicitOneIsPlanned() {
    JobPlanner automatic =
        new JobPlanner(
            JobSpec.parse("task_sets: [t.yaml]\nretrievers: [dense:m]\n", Path.of("/j.yaml")),
            PlanFixtures.models("r", List.of()),
            id -> null);
    assertThat(
            automatic.plan(List.of(task("s"))).getFirst().cells().stream()
                .map(c -> c.key().variant()))
        .containsExactly("base", "int8", "binary", "int8_rescore", "binary_rescore");
    JobPlanner explicit =
        new JobPlanner(
            JobSpec.parse(
                "task_sets: [t.yaml]\n"
                    + "retrievers: [{retriever: dense:m, variants: [base, truncate128]}]\n",
                Path.of("/j.yaml")),
            PlanFixtures.models("r", List.of()),
            id -> null);
    List<PlannedCell> cells = explicit.plan(List.of(task("s"))).getFirst().cells();
    assertThat(cells.stream().map(c -> c.key().variant())).containsExactly("base", "truncate128");
    assertThat(cells.get(1).facts().get("dimension")).isEqualTo(128.0);
  }

  @Test
  void aVariantsGridPlansItsCrossProductWithTheFingerprintsOfTheSameNamesListed() {
    String grid =
        "task_sets: [t.yaml]\n"
            + "retrievers:\n"
            + "  - retriever: dense:m\n"
            + "    variants: {truncate: [0, 256], quantization: [none, int8, binary],"
            + " rescore: [false, true], index: [exact, hnsw]}\n";
    Map<String, String> fromGrid = fingerprints(grid, "s", "r");
    assertThat(fromGrid).hasSize(2 * 2 * 5);
    assertThat(fromGrid)
        .containsKeys(
            "dense:m/base/retrieval",
            "dense:m/int8_rescore/retrieval",
            "dense:m/hnsw_int8/retrieval",
            "dense:m/truncate256_hnsw_binary_rescore/retrieval");
    String listed =
        "task_sets: [t.yaml]\n"
            + "retrievers: [{retriever: dense:m, variants: [base, int8_rescore, hnsw, hnsw_int8,"
            + " truncate256_hnsw_binary_rescore]}]\n";
    Map<String, String> fromList = fingerprints(listed, "s", "r");
    fromList.forEach((cell, fingerprint) -> assertThat(fromGrid).containsEntry(cell, fingerprint));
    // New variants are cells of their own.
    assertThat(fromGrid.get("dense:m/hnsw_int8/retrieval"))
        .isNotEqualTo(fromGrid.get("dense:m/int8/retrieval"))
        .isNotEqualTo(fromGrid.get("dense:m/hnsw/retrieval"));
  }

  @Test
  void anInvalidVariantsGridIsAJobSpecErrorNamingTheAxis() {
    assertThatThrownBy(
            () ->
                JobSpec.parse(
                    "task_sets: [t.yaml]\nretrievers:\n  - retriever: dense:m\n"
                        + "    variants: {quantization: [none], rescore: [true]}\n",
                    Path.of("/j.yaml")))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("retrievers[0].variants.rescore");
              assertThat(e.getMessage()).contains("rescore needs a quantization");
            });
    assertThatThrownBy(
            () ->
                JobSpec.parse(
                    "task_sets: [t.yaml]\nretrievers:\n  - retriever: dense:m\n"
                        + "    variants: [base, {quantization: [int8, fp4]}]\n",
                    Path.of("/j.yaml")))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("retrievers[0].variants[1].quantization[1]"));
  }

  @Test
  void anExplicitTruncationNoNarrowerThanTheModelIsRefusedNamingTheVariant() {
    JobPlanner planner =
        new JobPlanner(
            JobSpec.parse(
                "task_sets: [t.yaml]\nretrievers: [{retriever: dense:m, variants: [truncate512]}]\n",
                Path.of("/j.yaml")),
            PlanFixtures.models("r", List.of()),
            id -> null);
    assertThatThrownBy(() -> planner.plan(List.of(task("s"))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("truncate512")
        .hasMessageContaining("outputs 384");
  }

  @Test
  void positionSettingsLeaveTheFingerprintsOfTasksWithoutSpansAlone() {
    assertThat(
            fingerprints(
                SPEC + "positions: {min_count: 2, tokenizer: e5-small-v2}\n", "sha-1", "r1"))
        .isEqualTo(fingerprints(SPEC, "sha-1", "r1"));
  }

  @Test
  void thePositionsBlockIsCheckedFieldByField() {
    Path file = Path.of("/j.yaml");
    String base = "task_sets: [t.yaml]\nretrievers: [bm25]\n";
    assertThat(JobSpec.parse(base, file).positions())
        .isEqualTo(dev.tenbin.eval.positions.PositionSettings.DEFAULTS);
    var tuned =
        JobSpec.parse(
                base + "positions: {tokenizer: e5-small-v2, min_count: 3, reference: dense:m}\n",
                file)
            .positions();
    assertThat(tuned.tokenizer()).isEqualTo("e5-small-v2");
    assertThat(tuned.minCount()).isEqualTo(3);
    assertThat(tuned.reference()).isEqualTo("dense:m");
    java.util.Map<String, String> wrong =
        java.util.Map.of(
            "positions: [a]\n", "positions",
            "positions: {min_count: 0}\n", "positions.min_count",
            "positions: {min_count: many}\n", "positions.min_count",
            "positions: {reference: \"\"}\n", "positions.reference",
            "positions: {colour: red}\n", "positions.colour",
            "positions: {tokenizer: [x]}\n", "positions.tokenizer");
    wrong.forEach(
        (yaml, field) ->
            org.assertj.core.api.Assertions.assertThatThrownBy(
                    () -> JobSpec.parse(base + yaml, file))
                .as(yaml)
                .isInstanceOfSatisfying(
                    dev.tenbin.core.InvalidInputException.class,
                    e -> {
                      assertThat(e.field()).isEqualTo(field);
                      assertThat(e.getMessage()).contains("j.yaml", "field " + field);
                    }));
  }
}
