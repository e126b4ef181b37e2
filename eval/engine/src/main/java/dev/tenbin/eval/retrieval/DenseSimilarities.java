package dev.tenbin.eval.retrieval;

import dev.tenbin.core.InvalidInputException;
import dev.tenbin.eval.result.CellResult;
import dev.tenbin.eval.result.RankingMode;
import dev.tenbin.proto.common.v1.Similarity;
import dev.tenbin.scoring.beir.BeirDataset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The dense similarity setting shared by {@code tenbin eval} and jobs: {@code cosine}, {@code dot},
 * or {@code best} — both searched from one encode and, per variant and task, the better by nDCG@10
 * kept (as the HAKARI protocol reports it).
 */
public final class DenseSimilarities {
  private DenseSimilarities() {}

  /** The similarities a setting searches; a bad name is an error naming {@code field}. */
  public static List<Similarity> parse(String field, String name) {
    return switch (name == null ? "" : name.toLowerCase(Locale.ROOT)) {
      case "cosine" -> List.of(Similarity.SIMILARITY_COSINE);
      case "dot" -> List.of(Similarity.SIMILARITY_DOT);
      case "best" -> List.of(Similarity.SIMILARITY_COSINE, Similarity.SIMILARITY_DOT);
      default ->
          throw new InvalidInputException(
              field, field + " must be cosine, dot or best, got '" + name + "'");
    };
  }

  /**
   * Per variant name, the scored run of the similarity with the higher nDCG@10 (the first on a
   * tie).
   */
  public static Map<String, CellResult> bestPerVariant(
      BeirDataset data,
      String retriever,
      List<DenseVariant> variants,
      List<Similarity> similarities,
      Map<String, RetrievalResult> results) {
    Map<String, CellResult> best = new LinkedHashMap<>();
    for (DenseVariant variant : variants) {
      for (Similarity similarity : similarities) {
        CellResult run =
            RunScorer.score(
                data,
                retriever,
                variant.name(),
                RankingMode.RETRIEVAL,
                results.get(DenseRetrieval.key(variant, similarity)));
        CellResult current = best.get(variant.name());
        if (current == null || run.metrics().get("ndcg@10") > current.metrics().get("ndcg@10")) {
          best.put(variant.name(), run);
        }
      }
    }
    return best;
  }
}
