package dev.tenbin.eval.testing;

import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.store.CellRecord;
import dev.tenbin.eval.store.StoredDoc;
import dev.tenbin.eval.store.StoredQuery;
import dev.tenbin.scoring.metrics.Evaluation;
import dev.tenbin.scoring.metrics.Qrels;
import dev.tenbin.scoring.metrics.RankingEvaluator;
import dev.tenbin.scoring.metrics.RunOrder;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finished cells for tests, scored as the job runner scores them: the stored ranking in its own
 * order ({@link RunOrder#AS_GIVEN}) by the standard metric suite.
 */
public final class EvaluatedCells {
  private EvaluatedCells() {}

  /** Two queries, two judged documents each: q1 finds its positive at rank 1, q2 at rank 3. */
  public static final Qrels QRELS =
      Qrels.of(Map.of("q1", Map.of("d1", 1, "d9", 0), "q2", Map.of("d4", 2, "d2", 1)));

  /** A ranking without ties, scores that are not short decimals (FP32 values widened to double). */
  public static Map<String, List<ScoredDoc>> run(float shift) {
    Map<String, List<ScoredDoc>> run = new LinkedHashMap<>();
    run.put(
        "q1", List.of(doc("d1", 0.91f + shift), doc("d2", 0.5f + shift), doc("d3", 0.1f + shift)));
    run.put(
        "q2",
        List.of(
            doc("d1", 2.5946288f + shift), doc("d3", 1.0E-7f + shift), doc("d4", -0.3f + shift)));
    return run;
  }

  private static ScoredDoc doc(String id, float score) {
    return new ScoredDoc(id, score);
  }

  public static CellKey key(String task, String family, String model, String variant) {
    return CellKeys.key()
        .benchmark("NanoBEIR-en")
        .task(task)
        .domain("science")
        .system(family, model)
        .variant(variant)
        .build();
  }

  /**
   * A cell of {@code key} scoring {@code run} against {@code qrels}, its fingerprint derived from
   * the key.
   */
  public static CellRecord cell(CellKey key, Qrels qrels, Map<String, List<ScoredDoc>> run) {
    List<String> queryIds = new ArrayList<>(run.keySet());
    Evaluation evaluation =
        RankingEvaluator.standard().evaluate(qrels, run, queryIds, RunOrder.AS_GIVEN);
    List<StoredQuery> queries = new ArrayList<>();
    for (String queryId : queryIds) {
      List<StoredDoc> docs = new ArrayList<>();
      int rank = 1;
      for (ScoredDoc doc : run.get(queryId)) {
        docs.add(new StoredDoc(doc.docId(), doc.score(), rank++));
      }
      queries.add(new StoredQuery(queryId, evaluation.perQuery().get(queryId), docs));
    }
    Map<String, Object> diagnostics = new LinkedHashMap<>();
    diagnostics.put("query_coverage", 1.0);
    diagnostics.put("candidate_origin", Map.of("bm25", 3, "dense", 2));
    return new CellRecord(
        CellRecord.FORMAT_VERSION,
        fingerprint(key),
        key,
        Map.of("dataset_sha", "abc123", "tenbin_version", "0.1.0"),
        Map.of("num_queries", (double) queryIds.size(), "num_documents", 10.0),
        evaluation.means(),
        evaluation.tieAware(),
        Map.of("encode_ms", 12.0, "cell_ms", 40.0),
        diagnostics,
        queries,
        "2025-01-02T03:04:05Z");
  }

  public static String fingerprint(CellKey key) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(key.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
