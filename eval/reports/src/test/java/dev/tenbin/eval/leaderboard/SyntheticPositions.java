package dev.tenbin.eval.leaderboard;

import dev.tenbin.eval.positions.DocumentLengths;
import dev.tenbin.eval.positions.PositionAnalysis;
import dev.tenbin.eval.positions.PositionAnalyzer;
import dev.tenbin.eval.positions.PositionsView;
import dev.tenbin.eval.store.CellKey;
import dev.tenbin.eval.testing.CellKeys;
import dev.tenbin.scoring.beir.AnswerSpan;
import dev.tenbin.scoring.beir.SpanQrels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;

/**
 * Position-view rows of three systems on one task of 60 queries, three per bin, every document 700
 * tokens long (bucket 512–1024): BM25 flat at 0.8, a dense model falling from 1.0 by 0.03 a bin and
 * its int8 variant by 0.04 a bin. Analysed by the real {@link PositionAnalyzer}, {@code min_count}
 * 3, with BM25 as the reference.
 */
final class SyntheticPositions {
  private SyntheticPositions() {}

  static List<PositionsView.Row> rows() {
    Map<String, AnswerSpan> spans = new LinkedHashMap<>();
    Map<String, Integer> lengths = new HashMap<>();
    List<String> queries = new ArrayList<>();
    for (int q = 0; q < 60; q++) {
      String id = "q" + q;
      int bin = q % 20;
      spans.put(id, new AnswerSpan("d" + q, bin * 50 + 10, bin * 50 + 20, 1000));
      lengths.put("d" + q, 700);
      queries.add(id);
    }
    PositionAnalyzer analyzer =
        new PositionAnalyzer("bge-small-en-v1.5", new DocumentLengths("synthetic", lengths), 3);
    PositionAnalysis bm25 = analyse(analyzer, queries, SpanQrels.of(spans), bin -> 0.8);
    PositionAnalysis dense = analyse(analyzer, queries, SpanQrels.of(spans), bin -> 1 - 0.03 * bin);
    PositionAnalysis int8 = analyse(analyzer, queries, SpanQrels.of(spans), bin -> 1 - 0.04 * bin);
    return List.of(
        row("bm25", "bm25", "base", PositionAnalyzer.withReference(bm25, "bm25", bm25)),
        row("dense", "m", "base", PositionAnalyzer.withReference(dense, "bm25", bm25)),
        row("dense", "m", "int8", PositionAnalyzer.withReference(int8, "bm25", bm25)));
  }

  private static PositionAnalysis analyse(
      PositionAnalyzer analyzer, List<String> queries, SpanQrels spans, IntToDoubleFunction ndcg) {
    Map<String, Map<String, Double>> perQuery = new HashMap<>();
    for (String id : queries) {
      int bin = spans.span(id).orElseThrow().positionBin();
      perQuery.put(id, Map.of("ndcg@10", ndcg.applyAsDouble(bin), "recall@100", 1.0));
    }
    return analyzer.analyse(queries, perQuery, spans);
  }

  private static PositionsView.Row row(
      String family, String model, String variant, PositionAnalysis analysis) {
    CellKey key = CellKeys.key().task("task").system(family, model).variant(variant).build();
    return new PositionsView.Row(
        "task", key.system().name() + "/" + variant + "/retrieval", analysis, key);
  }
}
