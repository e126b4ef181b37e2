package dev.tenbin.scoring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-computed tie-aware values, the arithmetic in the comments. */
class TieAwareExamplesTest {
  private static TieAwareValue evaluate(
      Metric metric, int[] grades, int[] groupStarts, List<Integer> judged) {
    return TieAwareEvaluator.evaluate(
        metric, grades, TieGroups.fromStarts(groupStarts, grades.length), new JudgedQuery(judged));
  }

  @Test
  void reciprocalRankOfARelevantDocumentTiedWithOneOtherAtTheTop() {
    // Orders: relevant first (RR 1) or second (RR 1/2); expectation 3/4. Given order: second.
    TieAwareValue rr =
        evaluate(
            new Metric("mrr@10", Metric.Kind.RECIPROCAL_RANK, 10),
            new int[] {0, 1},
            new int[] {0},
            List.of(1));
    assertThat(rr).isEqualTo(new TieAwareValue(0.75, 0.5, 1.0, 0.5, -0.25));
  }

  @Test
  void averagePrecisionOfTwoRelevantAmongThreeTied() {
    // Relevant positions {1,2}: AP = (1/1 + 2/2)/2 = 1; {1,3}: (1 + 2/3)/2 = 0.8333;
    // {2,3}: (1/2 + 2/3)/2 = 0.5833. Expectation (1 + 0.8333 + 0.5833)/3 = 0.8056.
    TieAwareValue ap =
        evaluate(
            new Metric("map@100", Metric.Kind.AVERAGE_PRECISION, 100),
            new int[] {1, 0, 1},
            new int[] {0},
            List.of(1, 1, 0));
    assertThat(ap.expected()).isCloseTo(0.8056, within(5e-5));
    assertThat(ap.min()).isCloseTo(0.5833, within(5e-5));
    assertThat(ap.max()).isEqualTo(1.0);
    // Given order: relevant at 1 and 3, AP 0.8333; bias 0.8333 - 0.8056 = 0.0278.
    assertThat(ap.bias()).isCloseTo(0.0278, within(5e-5));
  }

  @Test
  void ndcgOfAGradeTwoDocumentTiedWithANonRelevantOne() {
    // IDCG = 2. Orders: [2, 0] -> 2/2 = 1; [0, 2] -> (2/log2(3))/2 = 0.6309. Expectation 0.8155.
    TieAwareValue ndcg =
        evaluate(
            new Metric("ndcg@10", Metric.Kind.NDCG, 10),
            new int[] {2, 0},
            new int[] {0},
            List.of(2, 0));
    assertThat(ndcg.expected()).isCloseTo(0.8155, within(5e-5));
    assertThat(ndcg.min()).isCloseTo(0.6309, within(5e-5));
    assertThat(ndcg.max()).isEqualTo(1.0);
    assertThat(ndcg.range()).isCloseTo(0.3691, within(5e-5));
  }

  @Test
  void successAtOneWithOneRelevantAmongFourTied() {
    // The relevant document is first in 1 order of 4 positions: expectation 1/4.
    TieAwareValue success =
        evaluate(
            new Metric("accuracy@1", Metric.Kind.SUCCESS, 1),
            new int[] {0, 0, 1, 0},
            new int[] {0},
            List.of(1));
    assertThat(success).isEqualTo(new TieAwareValue(0.25, 0, 1, 1, -0.25));
  }

  @Test
  void recallAtTwoWithTwoRelevantAmongFourTied() {
    // Each of the 2 relevant is in the top 2 with probability 2/4: E[found] = 1, recall 1/2.
    // At best both are (1), at worst neither (0). Given order [1, 0, 0, 1]: 1/2, no bias.
    TieAwareValue recall =
        evaluate(
            new Metric("recall@2", Metric.Kind.RECALL, 2),
            new int[] {1, 0, 0, 1},
            new int[] {0},
            List.of(1, 1));
    assertThat(recall).isEqualTo(new TieAwareValue(0.5, 0, 1, 1, 0));
  }

  @Test
  void precisionAtThreeWithOneRelevantAmongFourTiedAfterARelevantTop() {
    // Rank 1 relevant and alone; ranks 2-5 tied, one relevant among them. The cut-off takes 2 of
    // the 4 tied positions, so the tied relevant one is inside with probability 2/4:
    // E[found] = 1 + 1/2, P@3 = 1.5/3 = 0.5. Best 2/3, worst 1/3. Given order [1, 0, 0, 1, 0]
    // finds 1 of 3: bias 1/3 - 1/2 = -1/6.
    TieAwareValue precision =
        evaluate(
            new Metric("precision@3", Metric.Kind.PRECISION, 3),
            new int[] {1, 0, 0, 1, 0},
            new int[] {0, 1},
            List.of(1, 1));
    assertThat(precision.expected()).isCloseTo(0.5, within(1e-15));
    assertThat(precision.min()).isCloseTo(1.0 / 3, within(1e-15));
    assertThat(precision.max()).isCloseTo(2.0 / 3, within(1e-15));
    assertThat(precision.bias()).isCloseTo(-1.0 / 6, within(1e-15));
  }

  @Test
  void tiesAmongNonRelevantDocumentsChangeNothing() {
    // Positions 1-3 tie, none relevant: every order scores the same, exactly.
    TieAwareValue ap =
        evaluate(
            new Metric("map@100", Metric.Kind.AVERAGE_PRECISION, 100),
            new int[] {1, 0, 0, 0, 1},
            new int[] {0, 1, 4},
            List.of(1, 1));
    double plain = (1.0 + 2.0 / 5) / 2;
    assertThat(ap).isEqualTo(new TieAwareValue(plain, plain, plain, 0, 0));
  }

  @Test
  void queryValuesAndTheirFieldWiseMeansComeWithTheEvaluation() {
    // q1: relevant "a" tied with "z"; trec_eval order puts z first, so RR 1/2 (expectation 3/4).
    // q2: no ties, relevant first: RR 1 on every field.
    Qrels qrels = Qrels.of(Map.of("q1", Map.of("a", 1), "q2", Map.of("b", 1)));
    Map<String, List<ScoredDoc>> run =
        Map.of(
            "q1", List.of(new ScoredDoc("a", 2f), new ScoredDoc("z", 2f)),
            "q2", List.of(new ScoredDoc("b", 3f), new ScoredDoc("c", 1f)));
    Evaluation e =
        RankingEvaluator.standard().evaluate(qrels, run, List.of("q1", "q2"), RunOrder.TREC_EVAL);
    assertThat(e.perQueryTieAware().get("q1").get("mrr@10"))
        .isEqualTo(new TieAwareValue(0.75, 0.5, 1.0, 0.5, -0.25));
    assertThat(e.perQueryTieAware().get("q2").get("mrr@10"))
        .isEqualTo(new TieAwareValue(1, 1, 1, 0, 0));
    // Means: expected (0.75 + 1)/2, min (0.5 + 1)/2, max 1, range 0.25, bias -0.125.
    assertThat(e.tieAware().get("mrr@10"))
        .isEqualTo(new TieAwareValue(0.875, 0.75, 1.0, 0.25, -0.125));
    assertThat(e.means().get("mrr@10")).isEqualTo(0.75);
    assertThat(e.tieAware().keySet()).containsExactlyElementsOf(e.means().keySet());
  }
}
