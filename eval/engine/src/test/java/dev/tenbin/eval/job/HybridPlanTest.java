package dev.tenbin.eval.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.plan.PlannedCell;
import dev.tenbin.eval.plan.Work;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How a hybrid is planned: after its components, each component cell once, with a fingerprint
 * derived from the components' fingerprints and the fusion; and how its spec entries are checked.
 */
class HybridPlanTest {
  private static final String HEAD = "name: j\ntask_sets: [tasks.yaml]\n";

  private static List<Work> plan(String spec, String revision) {
    return PlanFixtures.plan(
        spec,
        PlanFixtures.models(revision, List.of()),
        PlanFixtures.noModels(),
        PlanFixtures.emptyTask("sha"));
  }

  /** "system/variant" to fingerprint, in plan order. */
  private static Map<String, String> cells(List<Work> plan) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Work work : plan) {
      for (PlannedCell cell : work.cells()) {
        assertThat(
                out.put(
                    cell.key().system().name() + "/" + cell.key().variant(), cell.fingerprint()))
            .as("planned twice: " + cell.key().label())
            .isNull();
      }
    }
    return out;
  }

  @Test
  void aHybridRunsAfterItsComponentsWhichArePlannedOnceAndItReadsTheirCellsInOrder() {
    List<Work> plan =
        plan(
            HEAD
                + "retrievers:\n"
                + "  - hybrid:bm25+dense:m\n"
                + "  - bm25\n"
                + "  - {retriever: dense:m, variants: [base, int8]}\n",
            "r1");
    Map<String, String> cells = cells(plan);
    assertThat(cells.keySet())
        .containsExactly(
            "bm25/base", "dense:m/base", "dense:m/int8", "hybrid:bm25+dense:m/rrf_k60");
    Work hybrid = plan.getLast();
    assertThat(hybrid.kind().name()).isEqualTo("hybrid");
    assertThat(hybrid.artifacts())
        .containsExactly(cells.get("bm25/base"), cells.get("dense:m/base"));
  }

  @Test
  void aHybridWhoseComponentsAreNotInTheJobPlansThemAndGetsTheSameFingerprint() {
    Map<String, String> alone =
        cells(plan(HEAD + "retrievers: ['hybrid:bm25+dense:m@int8']\n", "r1"));
    assertThat(alone.keySet())
        .containsExactly("bm25/base", "dense:m/int8", "hybrid:bm25+dense:m@int8/rrf_k60");
    Map<String, String> withComponents =
        cells(
            plan(
                HEAD
                    + "retrievers: [bm25, {retriever: dense:m, variants: [int8]},"
                    + " 'hybrid:bm25+dense:m@int8']\n",
                "r1"));
    assertThat(withComponents).isEqualTo(alone);
  }

  @Test
  void theFingerprintFollowsTheComponentsAndTheFusionAndNothingElse() {
    String spec = HEAD + "retrievers: ['hybrid:bm25+dense:m']\n";
    String key = "hybrid:bm25+dense:m/rrf_k60";
    String fingerprint = cells(plan(spec, "r1")).get(key);
    assertThat(cells(plan(spec, "r1")).get(key)).isEqualTo(fingerprint);
    assertThat(cells(plan(spec.replace("]\n", ", dense:other]\n"), "r1")).get(key))
        .as("another retriever in the job")
        .isEqualTo(fingerprint);
    assertThat(cells(plan(spec, "r2")).get(key))
        .as("a new revision of the dense component")
        .isNotEqualTo(fingerprint);
    Map<String, String> fusions =
        cells(
            plan(
                HEAD
                    + "retrievers:\n"
                    + "  - {retriever: 'hybrid:bm25+dense:m', variants: [rrf, rrf_k10, minmax]}\n"
                    + "  - {hybrid: {of: [bm25, dense:m], fusion: minmax, weight: 0.3}}\n"
                    + "  - {hybrid: {of: [dense:m, bm25]}}\n",
                "r1"));
    assertThat(fusions.get(key)).isEqualTo(fingerprint);
    List<String> all = new ArrayList<>(fusions.values());
    assertThat(all).doesNotHaveDuplicates();
    assertThat(fusions)
        .containsKeys(
            "hybrid:bm25+dense:m/rrf_k10",
            "hybrid:bm25+dense:m/minmax",
            "hybrid:bm25+dense:m/minmax_w0.3",
            "hybrid:dense:m+bm25/rrf_k60");
  }

  @Test
  void lightRetrieversHybridKeepsItsMinMaxCellUnlessRrfIsChosen() {
    String spec = HEAD + "retrievers: ['light:m']\n";
    Map<String, String> before = cells(plan(spec, "r1"));
    assertThat(cells(plan(spec + "light_hybrid_fusion: minmax\n", "r1"))).isEqualTo(before);
    Map<String, String> rrf = cells(plan(spec + "light_hybrid_fusion: rrf\n", "r1"));
    assertThat(rrf.keySet())
        .containsExactly("light:m/base", "light-sparse:m/base", "light-hybrid:m/rrf_k60");
    assertThat(rrf.get("light:m/base")).isEqualTo(before.get("light:m/base"));
    assertThat(rrf.get("light-hybrid:m/rrf_k60")).isNotEqualTo(before.get("light-hybrid:m/base"));
  }

  @Test
  void badHybridEntriesAreRefusedNamingTheField() {
    expectError("  - hybrid:bm25\n", "retrievers[0]", "fuses one retriever");
    expectError("  - hybrid:bm25+nosuch:x\n", "retrievers[0]", "unknown retriever 'nosuch:x'");
    expectError("  - hybrid:bm25+bm25\n", "retrievers[0]", "names bm25 twice");
    expectError("  - hybrid:bm25+dense:m@int9\n", "retrievers[0]", "int9");
    expectError(
        "  - {retriever: 'hybrid:bm25+dense:m', variants: [rrf_k0]}\n",
        "retrievers[0].variants[0]",
        "at least 1");
    expectError("  - {hybrid: {of: [bm25]}}\n", "retrievers[0].hybrid.of", "fuses one retriever");
    expectError(
        "  - {hybrid: {of: [bm25, 'hybrid:bm25+dense:m']}}\n",
        "retrievers[0].hybrid.of",
        "other than hybrid");
    expectError(
        "  - {hybrid: {of: [bm25, dense:m], k: 0}}\n", "retrievers[0].hybrid.k", "at least 1");
    expectError(
        "  - {hybrid: {of: [bm25, dense:m], k: 1.5}}\n", "retrievers[0].hybrid.k", "whole number");
    expectError(
        "  - {hybrid: {of: [bm25, dense:m], weight: 1.5}}\n",
        "retrievers[0].hybrid.weight",
        "within 0..1");
    expectError(
        "  - {hybrid: {of: [bm25, dense:m], weight: high}}\n",
        "retrievers[0].hybrid.weight",
        "must be a number");
    expectError(
        "  - {hybrid: {of: [bm25, dense:m], fusion: max}}\n",
        "retrievers[0].hybrid.fusion",
        "expected rrf or minmax");
    expectError(
        "  - {hybrid: {of: [bm25, dense:m], fusion: minmax, k: 10}}\n",
        "retrievers[0].hybrid.k",
        "takes none");
    expectError(
        "  - {hybrid: {of: [bm25, dense:m], depth: 10}}\n",
        "retrievers[0].hybrid.depth",
        "unknown");
    assertThatThrownBy(
            () ->
                JobSpec.parse(
                    HEAD + "retrievers: ['light:m']\nlight_hybrid_fusion: rrf_w0.4\n",
                    Path.of("/j.yaml")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("light_hybrid_dense_weight")
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo("light_hybrid_fusion");
  }

  private static void expectError(String retrievers, String field, String message) {
    assertThatThrownBy(
            () -> JobSpec.parse(HEAD + "retrievers:\n" + retrievers, Path.of("/jobs/job.yaml")))
        .as(retrievers)
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(message)
        .extracting(e -> ((InvalidInputException) e).field())
        .isEqualTo(field);
  }
}
