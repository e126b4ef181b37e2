package dev.tenbin.scoring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * Hand-computed cases pinning the {@code trec_eval -c} (version 10) semantics of each metric, to
 * four decimals at least (trec_eval prints four). log2(3) = 1.5849625, log2(5) = 2.3219281,
 * log2(12) = 3.5849625.
 */
class TrecEvalSemanticsTest {
  private static final Offset<Double> FOUR_DECIMALS = within(5e-5);

  private static ScoredDoc d(String id, double score) {
    return new ScoredDoc(id, score);
  }

  private static Map<String, Double> evaluateOne(
      Qrels qrels, List<ScoredDoc> ranking, RunOrder order) {
    return RankingEvaluator.standard()
        .evaluate(qrels, Map.of("q", ranking), List.of("q"), order)
        .perQuery()
        .get("q");
  }

  @Test
  void gradedJudgmentsAreGainsAndNonPositiveGradesAreNotRelevant() {
    // Judged: d1=2, d2=1, d3=0, d4=1 (not retrieved), d5=-1; x is unjudged. 3 relevant documents.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("d1", 2, "d2", 1, "d3", 0, "d4", 1, "d5", -1)));
    // Ranks: 1 d3 (0), 2 d1 (2), 3 d5 (-1), 4 d2 (1), 5 x (unjudged).
    List<ScoredDoc> ranking =
        List.of(d("d3", .9), d("d1", .8), d("d5", .7), d("d2", .6), d("x", .5));
    Map<String, Double> m = evaluateOne(qrels, ranking, RunOrder.TREC_EVAL);
    // DCG@10 = 2/log2(3) + 1/log2(5) = 1.2618595 + 0.4306766 = 1.6925361
    // IDCG@10 from grades 2, 1, 1 = 2/1 + 1/log2(3) + 1/log2(4) = 2 + 0.6309298 + 0.5 = 3.1309298
    // nDCG@10 = 1.6925361 / 3.1309298 = 0.5406
    assertThat(m.get("ndcg@10")).isCloseTo(0.5406, FOUR_DECIMALS);
    assertThat(m.get("ndcg@100")).isCloseTo(0.5406, FOUR_DECIMALS);
    // 2 of 3 relevant retrieved (d4 never is).
    assertThat(m.get("recall@10")).isCloseTo(0.6667, FOUR_DECIMALS);
    assertThat(m.get("recall@100")).isCloseTo(0.6667, FOUR_DECIMALS);
    // First relevant at rank 2.
    assertThat(m.get("accuracy@1")).isZero();
    assertThat(m.get("accuracy@10")).isEqualTo(1.0);
    assertThat(m.get("mrr@10")).isEqualTo(0.5);
    // AP = (P@2 + P@4) / 3 = (1/2 + 2/4) / 3 = 0.3333
    assertThat(m.get("map@100")).isCloseTo(0.3333, FOUR_DECIMALS);
  }

  @Test
  void ndcgRewardsTheHigherGradeFirst() {
    // a (grade 1) at rank 1, b (grade 2) at rank 2, c (grade 0) at rank 3.
    // DCG = 1/1 + 2/log2(3) = 2.2618595; IDCG = 2/1 + 1/log2(3) = 2.6309298; nDCG = 0.8597.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("a", 1, "b", 2, "c", 0)));
    Map<String, Double> m =
        evaluateOne(qrels, List.of(d("a", 3), d("b", 2), d("c", 1)), RunOrder.TREC_EVAL);
    assertThat(m.get("ndcg@10")).isCloseTo(0.8597, FOUR_DECIMALS);
    // Binary metrics do not see the grades: both relevant at ranks 1 and 2.
    assertThat(m.get("map@100")).isEqualTo(1.0);
    assertThat(m.get("mrr@10")).isEqualTo(1.0);
    assertThat(m.get("accuracy@1")).isEqualTo(1.0);
  }

  @Test
  void equalScoresAreOrderedByDocnoDescendingAsStrings() {
    // strcmp order: "doc9" > "doc2" > "doc10", so trec_eval ranks doc9, doc2, doc10.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("doc10", 1)));
    List<ScoredDoc> ranking = List.of(d("doc10", 1.5), d("doc2", 1.5), d("doc9", 1.5));
    Map<String, Double> m = evaluateOne(qrels, ranking, RunOrder.TREC_EVAL);
    // doc10 at rank 3: RR = 1/3; nDCG = (1/log2(4)) / 1 = 0.5.
    assertThat(m.get("mrr@10")).isCloseTo(0.3333, FOUR_DECIMALS);
    assertThat(m.get("ndcg@10")).isEqualTo(0.5);
    assertThat(m.get("accuracy@1")).isZero();
    // As given (Tenbin's doc id ascending order), doc10 is first.
    assertThat(evaluateOne(qrels, ranking, RunOrder.AS_GIVEN).get("mrr@10")).isEqualTo(1.0);
  }

  @Test
  void trecEvalOrderIgnoresTheOrderOfTheLinesAndSortsByScore() {
    Qrels qrels = Qrels.of(Map.of("q", Map.of("b", 1)));
    List<ScoredDoc> ranking = List.of(d("a", 1.0), d("b", 2.0));
    assertThat(evaluateOne(qrels, ranking, RunOrder.TREC_EVAL).get("mrr@10")).isEqualTo(1.0);
    assertThat(evaluateOne(qrels, ranking, RunOrder.AS_GIVEN).get("mrr@10")).isEqualTo(0.5);
  }

  @Test
  void judgedQueriesMissingFromTheRunScoreZeroAndCountInTheMean() {
    // q1 is ranked perfectly (1.0 on every metric but precision@10, which is 1/10 with one
    // relevant document), q2 is absent: every mean is (1 + 0) / 2, precision@10's (0.1 + 0) / 2.
    Qrels qrels = Qrels.of(Map.of("q1", Map.of("a", 1), "q2", Map.of("b", 1)));
    Evaluation e =
        RankingEvaluator.standard()
            .evaluate(
                qrels, Map.of("q1", List.of(d("a", 1))), List.of("q1", "q2"), RunOrder.TREC_EVAL);
    assertThat(e.numQueries()).isEqualTo(2);
    assertThat(e.means())
        .hasSize(10)
        .allSatisfy(
            (name, mean) ->
                assertThat(mean).as(name).isEqualTo(name.equals("precision@10") ? 0.05 : 0.5));
    assertThat(e.perQuery().get("q2").values()).containsOnly(0.0);
    assertThat(e.perQueryTieAware().get("q2").values())
        .allSatisfy(v -> assertThat(v.max()).isZero());
  }

  @Test
  void aQueryJudgedOnlyNonRelevantScoresZeroAndCountsInTheMean() {
    // q2's only judgment is grade 0, and that document is ranked first: still 0 everywhere.
    Qrels qrels = Qrels.of(Map.of("q1", Map.of("a", 1), "q2", Map.of("b", 0)));
    Evaluation e =
        RankingEvaluator.standard()
            .evaluate(
                qrels,
                Map.of("q1", List.of(d("a", 1)), "q2", List.of(d("b", 1))),
                qrels.queryIds(),
                RunOrder.TREC_EVAL);
    assertThat(e.perQuery().get("q2").values()).containsOnly(0.0);
    assertThat(e.means()).containsEntry("precision@10", 0.05);
    assertThat(e.means().entrySet())
        .filteredOn(m -> !m.getKey().equals("precision@10"))
        .allSatisfy(m -> assertThat(m.getValue()).isEqualTo(0.5));
  }

  @Test
  void aRelevantDocumentAtRankElevenCountsOnlyForCutOffsBeyondTen() {
    // 10 non-relevant documents, then r at rank 11; r2 (also relevant) is not retrieved.
    List<ScoredDoc> ranking = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ranking.add(d("n" + i, 100 - i));
    }
    ranking.add(d("r", 50));
    Qrels qrels = Qrels.of(Map.of("q", Map.of("r", 1, "r2", 1)));
    Map<String, Double> m = evaluateOne(qrels, ranking, RunOrder.TREC_EVAL);
    assertThat(m.get("ndcg@10")).isZero();
    assertThat(m.get("mrr@10")).isZero();
    assertThat(m.get("recall@10")).isZero();
    assertThat(m.get("accuracy@10")).isZero();
    // recall@100 = 1/2; success@100 = 1.
    assertThat(m.get("recall@100")).isEqualTo(0.5);
    assertThat(m.get("accuracy@100")).isEqualTo(1.0);
    // map_cut.100 = P@11 / 2 = (1/11) / 2 = 0.0455
    assertThat(m.get("map@100")).isCloseTo(0.0455, FOUR_DECIMALS);
    // ndcg_cut.100 = (1/log2(12)) / (1 + 1/log2(3)) = 0.2789429 / 1.6309298 = 0.1710
    assertThat(m.get("ndcg@100")).isCloseTo(0.1710, FOUR_DECIMALS);
  }

  @Test
  void aRelevantDocumentAtRank101CountsForNothing() {
    List<ScoredDoc> ranking = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ranking.add(d(String.format("n%03d", i), 1000 - i));
    }
    ranking.add(d("r", 1));
    Qrels qrels = Qrels.of(Map.of("q", Map.of("r", 3)));
    assertThat(evaluateOne(qrels, ranking, RunOrder.TREC_EVAL).values()).containsOnly(0.0);
  }

  @Test
  void averagePrecisionAveragesPrecisionAtEachRelevantRankOverAllRelevant() {
    // Relevant at ranks 1, 3 and 4; 4 relevant in total (e is not retrieved).
    // AP = (1/1 + 2/3 + 3/4) / 4 = 2.4166667 / 4 = 0.6042
    Qrels qrels = Qrels.of(Map.of("q", Map.of("a", 1, "c", 1, "d", 3, "e", 1)));
    List<ScoredDoc> ranking = List.of(d("a", 9), d("b", 8), d("c", 7), d("d", 6));
    Map<String, Double> m = evaluateOne(qrels, ranking, RunOrder.TREC_EVAL);
    assertThat(m.get("map@100")).isCloseTo(0.6042, FOUR_DECIMALS);
    assertThat(m.get("recall@10")).isEqualTo(0.75);
    // DCG = 1 + 1/log2(4) + 3/log2(5) = 1 + 0.5 + 1.2920297 = 2.7920297
    // IDCG = 3 + 1/log2(3) + 1/log2(4) + 1/log2(5) = 3 + 0.6309298 + 0.5 + 0.4306766 = 4.5616064
    // nDCG = 0.6121
    assertThat(m.get("ndcg@10")).isCloseTo(0.6121, FOUR_DECIMALS);
  }

  @Test
  void precisionCountsRelevantDocumentsInTheTopTenOverTenEvenForAShorterRanking() {
    // Ranks: 1 d3 (0), 2 d1 (2), 3 d5 (-1), 4 d2 (1), 5 x (unjudged); d4 (1) is not retrieved.
    // Relevant in the top 10: d1 and d2 = 2, over 10 (not over the 5 retrieved): P@10 = 0.2.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("d1", 2, "d2", 1, "d3", 0, "d4", 1, "d5", -1)));
    List<ScoredDoc> ranking =
        List.of(d("d3", .9), d("d1", .8), d("d5", .7), d("d2", .6), d("x", .5));
    assertThat(evaluateOne(qrels, ranking, RunOrder.TREC_EVAL).get("precision@10")).isEqualTo(0.2);
  }

  @Test
  void precisionStopsAtTheTenthRankAndIsZeroWithoutRelevantJudgments() {
    // 12 documents, relevant at ranks 1, 4, 10 and 11: 3 within the top 10, P@10 = 0.3.
    List<ScoredDoc> ranking = new ArrayList<>();
    for (int rank = 1; rank <= 12; rank++) {
      ranking.add(d("doc" + rank, 100 - rank));
    }
    Qrels qrels =
        Qrels.of(
            Map.of(
                "q", Map.of("doc1", 1, "doc4", 3, "doc10", 1, "doc11", 1, "doc2", 0),
                "none", Map.of("doc1", 0)));
    Evaluation e =
        RankingEvaluator.standard()
            .evaluate(
                qrels,
                Map.of("q", ranking, "none", ranking),
                List.of("q", "none"),
                RunOrder.TREC_EVAL);
    assertThat(e.perQuery().get("q").get("precision@10")).isCloseTo(0.3, within(1e-15));
    assertThat(e.perQuery().get("none").get("precision@10")).isZero();
    // trec_eval -c: the mean over both judged queries, (0.3 + 0) / 2.
    assertThat(e.means().get("precision@10")).isCloseTo(0.15, within(1e-15));
  }

  @Test
  void aRepeatedDocnoKeepsItsFirstLineAndCountsOnce() {
    // Lines: x 5, a 1, a 9. The first "a" (score 1) is kept, so a ranks 2nd, not 1st; a counts
    // once, so recall is 1/2 (b is not retrieved), not 2/2.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("a", 1, "b", 1)));
    List<ScoredDoc> ranking = List.of(d("x", 5), d("a", 1), d("a", 9));
    Map<String, Double> m = evaluateOne(qrels, ranking, RunOrder.TREC_EVAL);
    assertThat(m.get("mrr@10")).isEqualTo(0.5);
    assertThat(m.get("recall@100")).isEqualTo(0.5);
    // AP = (1/2) / 2 = 0.25
    assertThat(m.get("map@100")).isEqualTo(0.25);
    assertThat(evaluateOne(qrels, ranking, RunOrder.AS_GIVEN).get("recall@100")).isEqualTo(0.5);
  }

  @Test
  void meansArePlainArithmeticMeansInSuiteOrder() {
    // q1: relevant at rank 1 (RR 1); q2: at rank 2 (RR 1/2); q3: at rank 4 (RR 1/4). Mean 0.5833.
    Map<String, Map<String, Integer>> judgments = new LinkedHashMap<>();
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    int[] relevantRank = {1, 2, 4};
    for (int q = 0; q < 3; q++) {
      judgments.put("q" + q, Map.of("r", 1));
      List<ScoredDoc> ranking = new ArrayList<>();
      for (int rank = 1; rank <= 4; rank++) {
        ranking.add(d(rank == relevantRank[q] ? "r" : "n" + rank, 10 - rank));
      }
      run.put("q" + q, ranking);
    }
    Qrels qrels = Qrels.of(judgments);
    Evaluation e =
        RankingEvaluator.standard().evaluate(qrels, run, qrels.queryIds(), RunOrder.TREC_EVAL);
    assertThat(e.means().keySet())
        .containsExactly(
            "ndcg@10",
            "ndcg@100",
            "recall@10",
            "recall@100",
            "precision@10",
            "accuracy@1",
            "accuracy@10",
            "accuracy@100",
            "mrr@10",
            "map@100");
    assertThat(e.means().get("mrr@10")).isCloseTo(0.5833, FOUR_DECIMALS);
    assertThat(e.means().get("accuracy@1")).isCloseTo(0.3333, FOUR_DECIMALS);
    assertThat(e.perQuery().keySet()).containsExactly("q0", "q1", "q2");
  }
}
