package dev.tenbin.eval.nano;

import dev.tenbin.scoring.beir.BeirDataset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Mined hard negatives of a Nano-set's queries: every miner's top-k per query, pooled, less the
 * query's positives. A document's place in its query's pool is its best (smallest) rank over the
 * miners; equal best ranks are ordered by document id.
 */
public final class NegativePool {
  /** The pooling policy as {@code nano.json} records it. */
  public static final String POLICY =
      "per query: union of every miner's top-depth less the query's positives (score > 0),"
          + " ordered by best rank over the miners, ties by document id";

  private NegativePool() {}

  /** Each of {@code queries}' pooled mined negatives, best first. */
  static Map<String, List<String>> mine(
      BeirDataset dataset, List<String> queries, List<HardNegativeMiner> miners, int depth) {
    // The miners search the kept queries only.
    BeirDataset kept =
        new BeirDataset(
            dataset.name(),
            dataset.directory(),
            dataset.corpus(),
            dataset.queries(),
            dataset.qrels(),
            dataset.spans(),
            List.copyOf(queries),
            dataset.warnings());
    List<Map<String, List<String>>> rankings = new ArrayList<>();
    for (HardNegativeMiner miner : miners) {
      rankings.add(miner.rank(kept, depth));
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String query : queries) {
      List<List<String>> perMiner = new ArrayList<>();
      for (Map<String, List<String>> ranking : rankings) {
        List<String> list = ranking.getOrDefault(query, List.of());
        perMiner.add(list.subList(0, Math.min(depth, list.size())));
      }
      Set<String> positives =
          Set.copyOf(NanoSetBuilder.judged(dataset, query, grade -> grade > 0, doc -> true));
      out.put(query, pool(perMiner, positives));
    }
    return out;
  }

  /**
   * The union of {@code rankings} less {@code excluded}, ordered by best rank (1-based) over the
   * rankings, ties by document id.
   */
  static List<String> pool(List<List<String>> rankings, Set<String> excluded) {
    Map<String, Integer> bestRank = new HashMap<>();
    for (List<String> ranking : rankings) {
      for (int i = 0; i < ranking.size(); i++) {
        String doc = ranking.get(i);
        if (!excluded.contains(doc)) {
          bestRank.merge(doc, i + 1, Math::min);
        }
      }
    }
    List<String> pooled = new ArrayList<>(bestRank.keySet());
    pooled.sort(
        Comparator.comparingInt((String doc) -> bestRank.get(doc))
            .thenComparing(Comparator.naturalOrder()));
    return pooled;
  }
}
