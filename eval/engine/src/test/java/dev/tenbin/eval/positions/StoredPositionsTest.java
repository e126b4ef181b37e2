package dev.tenbin.eval.positions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenbin.eval.store.ResultStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stored form of a position analysis is the issue's JSON shape, and reads back equal. */
class StoredPositionsTest {
  private static PositionAnalysis analysis() {
    List<PositionBin> bins = new ArrayList<>();
    for (int bin = 0; bin < 20; bin++) {
      bins.add(bin == 3 ? new PositionBin(3, 0, null, null) : new PositionBin(bin, 6, 0.5, 0.75));
    }
    return new PositionAnalysis(
        "bge-small-en-v1.5",
        "xquad-en-long",
        5,
        "bm25",
        List.of(
            new PositionBucket(0, 512, 114, bins, 0.25, -0.1, -0.3, -0.2, -0.15, 0.8),
            new PositionBucket(2048, null, 0, bins, null, null, null, null, null, null)));
  }

  @Test
  void theDiagnosticUsesTheIssueFieldNamesAndNullsForEmptyBinsAndTheOpenBucket() throws Exception {
    String json = ResultStore.JSON.writeValueAsString(StoredPositions.toDiagnostic(analysis()));
    assertThat(json)
        .contains("\"tokenizer\":\"bge-small-en-v1.5\"")
        .contains("\"min_count\":5")
        .contains("\"min_tokens\":0,\"max_tokens\":512,\"queries\":114")
        .contains("{\"bin\":3,\"queries\":0,\"ndcg@10\":null,\"recall@100\":null}")
        .contains("\"max_tokens\":null")
        .contains(
            "\"psi\":0.25,\"slope\":-0.1,\"pearson\":-0.3,\"spearman\":-0.2,\"kendall\":-0.15");
  }

  @Test
  void anAnalysisStoredInACellReadsBackEqualAfterAJsonRoundTrip() throws Exception {
    Map<String, Object> stored = StoredPositions.toDiagnostic(analysis());
    String json = ResultStore.JSON.writeValueAsString(Map.of(StoredPositions.KEY, stored));
    Map<?, ?> read = ResultStore.JSON.readValue(json, Map.class);
    PositionAnalysis back =
        ResultStore.JSON.convertValue(read.get(StoredPositions.KEY), PositionAnalysis.class);
    assertThat(back).isEqualTo(analysis());
  }
}
