package dev.tenbin.integration.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.retrieval.HybridFusion;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A hybrid's fusion variants, and their fusion of hand-made rankings through the index service. */
class HybridFusionTest {
  @TempDir Path tmp;
  private InProcessIndex index;

  /** q1 in both lists; q2 only in BM25's (missing from the dense one). */
  private static final Map<String, List<ScoredDoc>> BM25 =
      Map.of(
          "q1", List.of(doc("a", 9), doc("b", 8), doc("c", 7)),
          "q2", List.of(doc("m", 3), doc("n", 1)));

  private static final Map<String, List<ScoredDoc>> DENSE =
      Map.of("q1", List.of(doc("c", 0.9), doc("a", 0.8), doc("x", 0.1)));

  private static ScoredDoc doc(String id, double score) {
    return new ScoredDoc(id, (float) score);
  }

  @BeforeEach
  void startIndex() throws Exception {
    index = new InProcessIndex(tmp.resolve("index"));
  }

  @AfterEach
  void stopIndex() {
    index.close();
  }

  private Map<String, List<ScoredDoc>> fuse(String variant, int topK) {
    Map<String, Map<String, List<ScoredDoc>>> components = new LinkedHashMap<>();
    components.put("bm25", BM25);
    components.put("dense:m", DENSE);
    return HybridFusion.parse(variant).fuse(index.client(), topK, components);
  }

  @Test
  void variantNamesAreCanonicalAndTheFirstWeightLeavesTheRestToTheOthersEqually() {
    assertThat(HybridFusion.parse("rrf").name()).isEqualTo("rrf_k60");
    assertThat(HybridFusion.parse("rrf_k10_w0.70").name()).isEqualTo("rrf_k10_w0.7");
    assertThat(HybridFusion.parse("minmax_w1").name()).isEqualTo("minmax_w1");
    assertThat(HybridFusion.DEFAULT.name()).isEqualTo("rrf_k60");
    assertThat(HybridFusion.parse("rrf").weights(2)).containsExactly(0.5, 0.5);
    assertThat(HybridFusion.parse("minmax_w0.5").weights(3)).containsExactly(0.5, 0.25, 0.25);
    assertThat(HybridFusion.isFusionVariant("rrf_k60")).isTrue();
    assertThat(HybridFusion.isFusionVariant("int8_rescore")).isFalse();
  }

  @Test
  void badFusionVariantsAreRefusedSayingWhatIsExpected() {
    for (String bad : List.of("rrf_k0", "rrf_w1.5", "minmax_k60", "rrf_kx", "rrfk60", "minmax_w")) {
      assertThatThrownBy(() -> HybridFusion.parse(bad))
          .as(bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining(bad);
    }
    assertThatThrownBy(() -> new HybridFusion("max", 60, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("expected rrf or minmax");
  }

  @Test
  void rrfSumsEachListsWeightOverKPlusRankAndAMissingDocumentOrQueryContributesNothing() {
    Map<String, List<ScoredDoc>> fused = fuse("rrf_k60", 0);
    // Equal weights 1/2: a .5/61+.5/62, c .5/63+.5/61, b .5/62, x .5/63.
    assertThat(fused.get("q1"))
        .containsExactly(
            doc("a", 0.5 / 61 + 0.5 / 62),
            doc("c", 0.5 / 63 + 0.5 / 61),
            doc("b", 0.5 / 62),
            doc("x", 0.5 / 63));
    // q2 has no dense ranking: BM25's order, at its weight.
    assertThat(fused.get("q2")).containsExactly(doc("m", 0.5 / 61), doc("n", 0.5 / 62));
  }

  @Test
  void aFirstWeightOfOneKeepsTheFirstListsOrderAndStillListsTheOthersDocumentsAtZero() {
    assertThat(fuse("rrf_k60_w1", 0).get("q1"))
        .containsExactly(doc("a", 1.0 / 61), doc("b", 1.0 / 62), doc("c", 1.0 / 63), doc("x", 0));
  }

  @Test
  void minMaxNormalisesEachListPerQueryAndWeighsThem() {
    // BM25 9, 8, 7 -> a 1, b .5, c 0; dense .9, .8, .1 -> c 1, a .875, x 0 (up to FP32 inputs).
    assertScores(fuse("minmax", 0).get("q1"), "a", 0.5 + 0.5 * 0.875, "c", 0.5, "b", 0.25, "x", 0);
    assertScores(
        fuse("minmax_w0.2", 0).get("q1"), "a", 0.2 + 0.8 * 0.875, "c", 0.8, "b", 0.1, "x", 0);
  }

  /** The ranking's doc ids in order, each with its score within FP32 rounding. */
  private static void assertScores(List<ScoredDoc> ranking, Object... idsAndScores) {
    assertThat(ranking).hasSize(idsAndScores.length / 2);
    for (int i = 0; i < ranking.size(); i++) {
      assertThat(ranking.get(i).docId()).isEqualTo(idsAndScores[2 * i]);
      assertThat(ranking.get(i).score())
          .as(ranking.get(i).docId())
          .isCloseTo(
              ((Number) idsAndScores[2 * i + 1]).doubleValue(),
              org.assertj.core.data.Offset.offset(1e-6));
    }
  }

  @Test
  void equalFusedScoresAreOrderedByDocIdAndTheFusedRankingIsCutToTheDepth() {
    Map<String, Map<String, List<ScoredDoc>>> components = new LinkedHashMap<>();
    components.put("bm25", Map.of("q", List.of(doc("z", 5))));
    components.put("dense:m", Map.of("q", List.of(doc("y", 0.3))));
    // Both first in one list: the same fused score, so doc id decides.
    assertThat(HybridFusion.DEFAULT.fuse(index.client(), 0, components).get("q"))
        .containsExactly(doc("y", 0.5 / 61), doc("z", 0.5 / 61));
    assertThat(fuse("rrf_k60", 2).get("q1")).extracting(ScoredDoc::docId).containsExactly("a", "c");
  }
}
