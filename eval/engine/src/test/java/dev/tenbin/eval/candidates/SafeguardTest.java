package dev.tenbin.eval.candidates;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.scoring.beir.BeirDataset;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SafeguardTest {
  private static BeirDataset dataset(Map<String, Map<String, Integer>> qrels) {
    return new BeirDataset(
        "t",
        Path.of("."),
        dev.tenbin.scoring.beir.Corpus.of(List.of()),
        Map.of("q", "query"),
        Qrels.of(qrels),
        dev.tenbin.scoring.beir.SpanQrels.none(),
        List.of("q"),
        List.of());
  }

  private static List<ScoredDoc> fused(int size) {
    List<ScoredDoc> list = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      list.add(new ScoredDoc(String.format("d%03d", i), 1000 - i));
    }
    return list;
  }

  @Test
  void noSafeguardWhenTheTopHundredHoldsAPositive() {
    QueryCandidates q =
        CandidateSetBuilder.withSafeguard(
            dataset(Map.of("q", Map.of("d050", 1))), "q", fused(300), Map.of(), Map.of());
    assertThat(q.top()).hasSize(100);
    assertThat(q.safeguard()).isNull();
  }

  @Test
  void theBestRankedPositiveOfTheFusedListIsAppendedAtRank101() {
    QueryCandidates q =
        CandidateSetBuilder.withSafeguard(
            dataset(Map.of("q", Map.of("d250", 1, "d120", 2, "d010", 0))),
            "q",
            fused(300),
            Map.of("d120", 7),
            Map.of());
    assertThat(q.safeguard()).isEqualTo(new Candidate("d120", 101, 7, 0));
  }

  @Test
  void otherwiseTheFirstJudgedPositiveByDocId() {
    QueryCandidates q =
        CandidateSetBuilder.withSafeguard(
            dataset(Map.of("q", Map.of("zeta", 1, "alpha", 1, "beta", 0))),
            "q",
            fused(150),
            Map.of(),
            Map.of());
    assertThat(q.safeguard().docId()).isEqualTo("alpha");
    assertThat(q.safeguard().rank()).isEqualTo(101);
  }
}
