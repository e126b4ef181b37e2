package dev.tenbin.scoring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RankingEvaluatorTest {
  @Test
  void manyQueriesAreMeasuredEachOnItsOwnAndReportedInTheOrderOfTheIds() {
    Random random = new Random(3);
    Map<String, Map<String, Integer>> judgments = new LinkedHashMap<>();
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    List<String> ids = new ArrayList<>();
    for (int q = 499; q >= 0; q--) {
      String id = "q" + q;
      ids.add(id);
      Map<String, Integer> grades = new LinkedHashMap<>();
      List<ScoredDoc> ranking = new ArrayList<>();
      for (int d = 0; d < 30; d++) {
        grades.put("d" + random.nextInt(60), random.nextInt(3));
        ranking.add(new ScoredDoc("d" + random.nextInt(60), random.nextInt(10)));
      }
      judgments.put(id, grades);
      run.put(id, ranking);
    }
    Qrels qrels = Qrels.of(judgments);
    RankingEvaluator evaluator = RankingEvaluator.standard();

    Evaluation all = evaluator.evaluate(qrels, run, ids, RunOrder.TREC_EVAL);

    assertThat(all.perQuery().keySet()).containsExactlyElementsOf(ids);
    for (String id : List.of("q0", "q250", "q499")) {
      Evaluation alone = evaluator.evaluate(qrels, run, List.of(id), RunOrder.TREC_EVAL);
      assertThat(all.perQuery().get(id)).isEqualTo(alone.perQuery().get(id));
      assertThat(all.perQueryTieAware().get(id)).isEqualTo(alone.perQueryTieAware().get(id));
    }
    for (Metric metric : MetricSuite.standard()) {
      double sum = 0;
      for (String id : ids) {
        sum += all.perQuery().get(id).get(metric.name());
      }
      assertThat(all.means().get(metric.name())).isEqualTo(sum / ids.size());
    }
    assertThat(evaluator.evaluate(qrels, run, ids, RunOrder.TREC_EVAL)).isEqualTo(all);
  }
}
