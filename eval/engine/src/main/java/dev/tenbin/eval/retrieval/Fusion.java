package dev.tenbin.eval.retrieval;

import dev.tenbin.client.index.IndexClient;
import dev.tenbin.proto.common.v1.Ranking;
import dev.tenbin.proto.common.v1.ScoredDocument;
import dev.tenbin.proto.index.v1.FuseRequest;
import dev.tenbin.proto.index.v1.FusionMethod;
import dev.tenbin.proto.index.v1.RankingSet;
import dev.tenbin.scoring.metrics.ScoredDoc;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Fuses the rankings of several systems through the index service's Fuse RPC. */
public final class Fusion {
  private Fusion() {}

  /** Reciprocal rank fusion with constant {@code k}; systems in the given order. */
  public static Map<String, List<ScoredDoc>> reciprocalRank(
      IndexClient index, int k, int topK, Map<String, Map<String, List<ScoredDoc>>> systems) {
    return fuse(
        index,
        FuseRequest.newBuilder().setMethod(FusionMethod.FUSION_METHOD_RRF).setRrfK(k).setTopK(topK),
        systems);
  }

  /**
   * Weighted reciprocal rank fusion: {@code Σ w_i / (k + rank_i)}, one weight per system in the
   * given order.
   */
  public static Map<String, List<ScoredDoc>> reciprocalRank(
      IndexClient index,
      int k,
      List<Double> weights,
      int topK,
      Map<String, Map<String, List<ScoredDoc>>> systems) {
    FuseRequest.Builder request =
        FuseRequest.newBuilder().setMethod(FusionMethod.FUSION_METHOD_RRF).setRrfK(k).setTopK(topK);
    weights.forEach(weight -> request.addWeights(weight.floatValue()));
    return fuse(index, request, systems);
  }

  /** Min-max normalized scores interpolated with one weight per system, in the given order. */
  public static Map<String, List<ScoredDoc>> linear(
      IndexClient index,
      List<Double> weights,
      int topK,
      Map<String, Map<String, List<ScoredDoc>>> systems) {
    FuseRequest.Builder request =
        FuseRequest.newBuilder().setMethod(FusionMethod.FUSION_METHOD_LINEAR).setTopK(topK);
    weights.forEach(weight -> request.addWeights(weight.floatValue()));
    return fuse(index, request, systems);
  }

  private static Map<String, List<ScoredDoc>> fuse(
      IndexClient index,
      FuseRequest.Builder request,
      Map<String, Map<String, List<ScoredDoc>>> systems) {
    systems.forEach((name, rankings) -> request.addSystems(rankingSet(name, rankings)));
    Map<String, List<ScoredDoc>> fused = new LinkedHashMap<>();
    for (Ranking ranking :
        index.withDeadline(Duration.ofMinutes(10)).fuse(request.build()).getRankingsList()) {
      fused.put(ranking.getQueryId(), IndexSession.toScoredDocs(ranking));
    }
    return fused;
  }

  private static RankingSet rankingSet(String name, Map<String, List<ScoredDoc>> rankings) {
    RankingSet.Builder set = RankingSet.newBuilder().setName(name);
    rankings.forEach(
        (queryId, docs) -> {
          Ranking.Builder ranking = Ranking.newBuilder().setQueryId(queryId);
          int rank = 1;
          for (ScoredDoc doc : docs) {
            ranking.addDocuments(
                ScoredDocument.newBuilder()
                    .setDocId(doc.docId())
                    .setScore((float) doc.score())
                    .setRank(rank++));
          }
          set.addRankings(ranking);
        });
    return set.build();
  }
}
