package dev.tenbin.eval.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-computed cases pinning the trec_eval 10 ({@code -c}) semantics of each metric. */
class TrecEvalSemanticsTest {
  private static final double LOG2_3 = Math.log(3) / Math.log(2);
  private static final double LOG2_4 = 2.0;
  private static final double LOG2_5 = Math.log(5) / Math.log(2);

  private static ScoredDoc d(String id, double score) {
    return new ScoredDoc(id, score);
  }

  private static Evaluation evaluate(Qrels qrels, Map<String, List<ScoredDoc>> run, RunOrder order) {
    return RankingEvaluator.standard().evaluate(qrels, run, qrels.queryIds(), order);
  }

  @Test
  void gradedNdcgUsesGradesAsGainsAndTheIdealOrder() {
    // q: a (grade 1) at rank 1, b (grade 2) at rank 2, c (grade 0) at rank 3.
    // DCG@10 = 1/log2(2) + 2/log2(3) = 1 + 1.26186; IDCG = 2/1 + 1/log2(3) = 2.63093.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("a", 1, "b", 2, "c", 0)));
    Evaluation e = evaluate(qrels, Map.of("q", List.of(d("a", 3), d("b", 2), d("c", 1))), RunOrder.TREC_EVAL);
    double expected = (1 + 2 / LOG2_3) / (2 + 1 / LOG2_3);
    assertThat(e.means().get("ndcg@10")).isCloseTo(expected, within(1e-12));
    assertThat(e.means().get("ndcg@10")).isCloseTo(0.8597, within(1e-4));
    // AP: relevant at ranks 1 and 2: (1/1 + 2/2) / 2 = 1; MRR 1; recall 1; success@1 1.
    assertThat(e.means().get("map@100")).isEqualTo(1.0);
    assertThat(e.means().get("mrr@10")).isEqualTo(1.0);
    assertThat(e.means().get("accuracy@1")).isEqualTo(1.0);
  }

  @Test
  void tiesAreBrokenByDocnoDescendingInTrecEvalOrder() {
    // Equal scores: trec_eval puts "z" before "a"; only "a" is relevant, so it lands at rank 2.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("a", 1)));
    Map<String, List<ScoredDoc>> run = Map.of("q", List.of(d("a", 1.5), d("z", 1.5)));
    Evaluation trec = evaluate(qrels, run, RunOrder.TREC_EVAL);
    assertThat(trec.means().get("mrr@10")).isEqualTo(0.5);
    assertThat(trec.means().get("ndcg@10")).isCloseTo(1 / LOG2_3, within(1e-12));
    assertThat(trec.means().get("accuracy@1")).isEqualTo(0.0);
    // Tenbin's own order (doc id ascending) puts "a" first.
    Evaluation given = evaluate(qrels, run, RunOrder.AS_GIVEN);
    assertThat(given.means().get("mrr@10")).isEqualTo(1.0);
  }

  @Test
  void runIsResortedByScoreWhateverTheRankColumnSays() {
    Qrels qrels = Qrels.of(Map.of("q", Map.of("b", 1)));
    Evaluation e = evaluate(qrels, Map.of("q", List.of(d("a", 1.0), d("b", 2.0))), RunOrder.TREC_EVAL);
    assertThat(e.means().get("mrr@10")).isEqualTo(1.0);
  }

  @Test
  void judgedQueriesMissingFromTheRunScoreZeroAndCountInTheMean() {
    // q1 perfect, q2 absent from the run: every mean is half of q1's value.
    Qrels qrels = Qrels.of(Map.of("q1", Map.of("a", 1), "q2", Map.of("b", 1)));
    Evaluation e = evaluate(qrels, Map.of("q1", List.of(d("a", 1))), RunOrder.TREC_EVAL);
    assertThat(e.numQueries()).isEqualTo(2);
    assertThat(e.means().values()).allSatisfy(v -> assertThat(v).isEqualTo(0.5));
    assertThat(e.perQuery().get("q2").values()).containsOnly(0.0);
  }

  @Test
  void aQueryJudgedOnlyNonRelevantCountsWithZero() {
    Qrels qrels = Qrels.of(Map.of("q1", Map.of("a", 1), "q2", Map.of("b", 0)));
    Evaluation e =
        evaluate(qrels, Map.of("q1", List.of(d("a", 1)), "q2", List.of(d("b", 1))), RunOrder.TREC_EVAL);
    assertThat(e.means().get("ndcg@10")).isEqualTo(0.5);
    assertThat(e.means().get("recall@100")).isEqualTo(0.5);
  }

  @Test
  void cutOffsDecideWhatARelevantDocumentAtRankElevenCountsFor() {
    // 10 non-relevant documents, then the one relevant at rank 11 (of 2 relevant in total).
    java.util.ArrayList<ScoredDoc> ranking = new java.util.ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ranking.add(d("n" + i, 100 - i));
    }
    ranking.add(d("r", 50));
    Qrels qrels = Qrels.of(Map.of("q", Map.of("r", 1, "r2", 1)));
    Evaluation e = evaluate(qrels, Map.of("q", ranking), RunOrder.TREC_EVAL);
    assertThat(e.means().get("ndcg@10")).isZero();
    assertThat(e.means().get("mrr@10")).isZero();
    assertThat(e.means().get("recall@10")).isZero();
    assertThat(e.means().get("accuracy@10")).isZero();
    assertThat(e.means().get("recall@100")).isEqualTo(0.5);
    assertThat(e.means().get("accuracy@100")).isEqualTo(1.0);
    // map_cut.100: precision at rank 11 is 1/11, over 2 relevant.
    assertThat(e.means().get("map@100")).isCloseTo(1.0 / 11 / 2, within(1e-12));
    // ndcg_cut.100: 1/log2(12) over the ideal 1 + 1/log2(3).
    assertThat(e.means().get("ndcg@100"))
        .isCloseTo((1 / (Math.log(12) / Math.log(2))) / (1 + 1 / LOG2_3), within(1e-12));
  }

  @Test
  void averagePrecisionAndRecallFollowRelevantRanks() {
    // Relevant at ranks 1, 3 and 4 of 4 relevant in total: AP = (1 + 2/3 + 3/4) / 4 = 0.604167.
    Qrels qrels = Qrels.of(Map.of("q", Map.of("a", 1, "c", 1, "d", 3, "e", 1)));
    List<ScoredDoc> ranking = List.of(d("a", 9), d("b", 8), d("c", 7), d("d", 6));
    Evaluation e = evaluate(qrels, Map.of("q", ranking), RunOrder.TREC_EVAL);
    assertThat(e.means().get("map@100")).isCloseTo(0.6042, within(1e-4));
    assertThat(e.means().get("recall@10")).isEqualTo(0.75);
    // nDCG@10: DCG = 1 + 1/log2(4) + 3/log2(5); IDCG = 3 + 1/log2(3) + 1/log2(4) + 1/log2(5).
    double dcg = 1 + 1 / LOG2_4 + 3 / LOG2_5;
    double idcg = 3 + 1 / LOG2_3 + 1 / LOG2_4 + 1 / LOG2_5;
    assertThat(e.means().get("ndcg@10")).isCloseTo(dcg / idcg, within(1e-12));
  }

  @Test
  void duplicateDocumentsKeepTheirFirstLine() {
    Qrels qrels = Qrels.of(Map.of("q", Map.of("a", 1, "b", 1)));
    List<ScoredDoc> ranking = List.of(d("a", 3), d("x", 2), d("a", 1));
    Evaluation e = evaluate(qrels, Map.of("q", ranking), RunOrder.TREC_EVAL);
    assertThat(e.means().get("recall@100")).isEqualTo(0.5);
    assertThat(e.means().get("map@100")).isEqualTo(0.5);
  }
}
